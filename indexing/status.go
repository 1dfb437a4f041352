package indexing

import (
	"context"
	"fmt"
	"slices"
	"sort"

	hs "github.com/hybrid-search/hybridsearch"
)

// MaxProblems caps the problems a status lists.
const MaxProblems = 200

// Summarize reads every file state and counts those user can read; with
// all set it counts every file and fills PerUser.
func Summarize(ctx context.Context, states StateLister, user hs.UserID, all bool) (hs.IndexStatus, error) {
	return summarize(ctx, states, user, all, nil)
}

// summarize is Summarize that also tells how far rb, if not nil, has come
// over the same files.
func summarize(ctx context.Context, states StateLister, user hs.UserID, all bool, rb *Rebuild) (hs.IndexStatus, error) {
	sum := hs.IndexStatus{Problems: []hs.Problem{}}
	if all {
		sum.PerUser = map[string]hs.FileCounts{}
	}
	if rb != nil {
		sum.Rebuild = &hs.RebuildProgress{Model: rb.Model}
	}
	err := states.List(ctx, func(st hs.FileState) error {
		summarizeRebuild(&sum, rb, st, user, all)
		if all {
			for _, r := range st.Readers {
				c := sum.PerUser[string(r)]
				count(&c, st)
				sum.PerUser[string(r)] = c
			}
		} else if !slices.Contains(st.Readers, user) {
			return nil
		}
		count(&sum.Files, st)
		status := st.Status
		if st.Status == hs.StatusIndexed && st.NoVectors > 0 {
			status = hs.ProblemPartial
		}
		if status != hs.StatusIndexed && st.Error != "" {
			pth := st.Paths[user]
			if pth == "" {
				for _, r := range st.Readers {
					if pth = st.Paths[r]; pth != "" {
						break
					}
				}
			}
			sum.Problems = append(sum.Problems, hs.Problem{FileID: st.ID, Path: pth, Status: status, Error: st.Error, Updated: st.Updated})
		}
		return nil
	})
	if err != nil {
		return hs.IndexStatus{}, fmt.Errorf("summarize index state: %w", err)
	}
	sort.Slice(sum.Problems, func(i, j int) bool {
		if !sum.Problems[i].Updated.Equal(sum.Problems[j].Updated) {
			return sum.Problems[i].Updated.After(sum.Problems[j].Updated)
		}
		return sum.Problems[i].FileID < sum.Problems[j].FileID
	})
	if sum.Rebuild != nil {
		finishRebuild(sum.Rebuild)
	}
	sum.ProblemsTotal = len(sum.Problems)
	if len(sum.Problems) > MaxProblems {
		sum.Problems = sum.Problems[:MaxProblems]
	}
	return sum, nil
}

func count(c *hs.FileCounts, st hs.FileState) {
	switch st.Status {
	case hs.StatusIndexed:
		c.Indexed++
		c.Chunks += st.Chunks
	case hs.StatusSkipped:
		c.Skipped++
	case hs.StatusFailed:
		c.Failed++
	default:
		c.Pending++
	}
}
