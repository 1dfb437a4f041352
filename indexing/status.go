package indexing

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	hs "github.com/hybrid-search/hybridsearch"
)

// FileCounts counts a user's files by index status.
type FileCounts struct {
	Indexed int `json:"indexed"`
	Skipped int `json:"skipped"`
	Failed  int `json:"failed"`
	Pending int `json:"pending"`
	Chunks  int `json:"chunks"`
}

// ProblemPartial is the Status of a Problem for a file that is indexed
// but has chunks without a dense vector (hs.FileState.NoVectors): keyword
// and fuzzy search find them, search by meaning does not.
const ProblemPartial = "partial"

// Problem is a file that was not indexed, or only in part, with the
// reason.
type Problem struct {
	FileID  hs.FileID `json:"file_id"`
	Path    string    `json:"path"`
	Status  string    `json:"status"`
	Error   string    `json:"error"`
	Updated time.Time `json:"updated"`
}

// Summary is the index state as one user (or an admin, for all) sees it.
type Summary struct {
	Files    FileCounts            `json:"files"`
	Problems []Problem             `json:"problems"` // failed, skipped, retrying and partial files, newest first, at most MaxProblems
	PerUser  map[string]FileCounts `json:"per_user,omitempty"`
}

// MaxProblems caps the problems listed in a Summary.
const MaxProblems = 200

// Summarize reads every file state and counts those user can read; with
// all set it counts every file and fills PerUser.
func Summarize(ctx context.Context, states StateLister, user hs.UserID, all bool) (Summary, error) {
	sum := Summary{Problems: []Problem{}}
	if all {
		sum.PerUser = map[string]FileCounts{}
	}
	err := states.List(ctx, func(st hs.FileState) error {
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
			status = ProblemPartial
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
			sum.Problems = append(sum.Problems, Problem{FileID: st.ID, Path: pth, Status: status, Error: st.Error, Updated: st.Updated})
		}
		return nil
	})
	if err != nil {
		return Summary{}, fmt.Errorf("summarize index state: %w", err)
	}
	sort.Slice(sum.Problems, func(i, j int) bool {
		if !sum.Problems[i].Updated.Equal(sum.Problems[j].Updated) {
			return sum.Problems[i].Updated.After(sum.Problems[j].Updated)
		}
		return sum.Problems[i].FileID < sum.Problems[j].FileID
	})
	if len(sum.Problems) > MaxProblems {
		sum.Problems = sum.Problems[:MaxProblems]
	}
	return sum, nil
}

func count(c *FileCounts, st hs.FileState) {
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
