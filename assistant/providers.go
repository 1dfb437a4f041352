package assistant

import (
	hs "github.com/hybrid-search/hybridsearch"
	"github.com/hybrid-search/hybridsearch/nextcloud"
)

// The slots of the app's task types. AppAPI uses a slot's name as its key
// and as the label the Assistant shows, so they are short words.
const (
	SlotQuery     = "query"     // search: the query (Text)
	SlotAlgorithm = "algorithm" // search: optional Enum
	SlotFolder    = "folder"    // both: optional Text, a folder of the user's
	SlotResults   = "results"   // search: the results as text
	SlotFiles     = "files"     // search: optional ListOfFiles, the files found
	SlotQuestion  = "question"  // ask: the question (Text)
	SlotAnswer    = "answer"    // ask: the answer with its sources, as text
	SlotSources   = "sources"   // ask: optional ListOfFiles, the files cited
)

// TaskSearch and TaskAsk are the task types' ids for an app id.
func TaskSearch(appID string) string { return appID + ":search" }

// TaskAsk is the ask task type's id.
func TaskAsk(appID string) string { return appID + ":ask" }

var folderShape = nextcloud.Shape{Name: SlotFolder, Description: "Only files in this folder of yours, e.g. /Projects (optional)", Type: nextcloud.ShapeText}

// SearchProvider is the "Search my files" provider with its task type.
func SearchProvider(appID string) nextcloud.TaskProvider {
	algorithms := []nextcloud.EnumValue{
		{Name: "Hybrid (meaning, keywords and typos)", Value: hs.AlgorithmHybrid},
		{Name: "Semantic (meaning)", Value: hs.AlgorithmSemantic},
		{Name: "Keyword", Value: hs.AlgorithmKeyword},
		{Name: "Fuzzy (typo-tolerant)", Value: hs.AlgorithmFuzzy},
	}
	return nextcloud.TaskProvider{
		ID: appID + "-search", Name: "Hybrid Search", TaskType: TaskSearch(appID), ExpectedRuntime: 10,
		OptionalInputShape: []nextcloud.Shape{
			{Name: SlotAlgorithm, Description: "How to search: hybrid (the default), semantic, keyword or fuzzy", Type: nextcloud.ShapeEnum},
			folderShape,
		},
		OptionalOutputShape:          []nextcloud.Shape{{Name: SlotFiles, Description: "The files found", Type: nextcloud.ShapeListOfFiles}},
		OptionalInputShapeEnumValues: map[string][]nextcloud.EnumValue{SlotAlgorithm: algorithms},
		OptionalInputShapeDefaults:   map[string]any{SlotAlgorithm: hs.AlgorithmHybrid},
		CustomTaskType: &nextcloud.TaskType{
			ID: TaskSearch(appID), Name: "Search my files",
			Description: "Finds your files and notes by meaning, keywords and typo-tolerant matching, and lists them with excerpts and links.",
			InputShape:  []nextcloud.Shape{{Name: SlotQuery, Description: "What to look for", Type: nextcloud.ShapeText}},
			OutputShape: []nextcloud.Shape{{Name: SlotResults, Description: "The files found, with titles, paths, excerpts and links", Type: nextcloud.ShapeText}},
		},
	}
}

// AskProvider is the "Ask your files" provider with its task type.
func AskProvider(appID string) nextcloud.TaskProvider {
	return nextcloud.TaskProvider{
		ID: appID + "-ask", Name: "Hybrid Search", TaskType: TaskAsk(appID), ExpectedRuntime: 60,
		OptionalInputShape:  []nextcloud.Shape{folderShape},
		OptionalOutputShape: []nextcloud.Shape{{Name: SlotSources, Description: "The files the answer cites", Type: nextcloud.ShapeListOfFiles}},
		CustomTaskType: &nextcloud.TaskType{
			ID: TaskAsk(appID), Name: "Ask your files",
			Description: "Answers a question from your own files and notes only, citing them, and says so when they do not contain the answer.",
			InputShape:  []nextcloud.Shape{{Name: SlotQuestion, Description: "Your question", Type: nextcloud.ShapeText}},
			OutputShape: []nextcloud.Shape{{Name: SlotAnswer, Description: "The answer with its numbered sources and links", Type: nextcloud.ShapeText}},
		},
	}
}
