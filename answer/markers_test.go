package answer

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// markerSeeds are texts where answer markers sit at word boundaries, inside
// words, in tags, in other cases and next to the two folding letters.
var markerSeeds = []string{
	"", "The answer is B.", "Final answer: (C)", "**Answer:** $B$", "my pick: C", "<answer>C</answer>", "<final_answer> D",
	"the most likely diagnosis in this patient is C", "the best next step is E", "Most likely: C", "ANSWERS: A, B",
	"transwer is A; answering: B; choicest: C", "mychoice: A my choice: B", "x<answer>B", "beſt answer: C", "best anſwer: C",
	"the \u212aey answer is B", "overall answer -> A", "Verdict: B\nCorrect option (see above) is: D", "true answer would be: E",
	"single best answer is therefore, C", "our answer, clearly: A", "next best step: B", "preferred treatment in adults is A",
	"\u00e9answer: B", "_answer: A", "9answer: B", "answer", "<", "most", "the right choice letter = C",
}

func checkMarkers(t *testing.T, text string) {
	for _, n := range []int{-1, 1, 3, maxCommits + 1} {
		want := reAnswerMarker.FindAllStringIndex(text, n)
		if got := findAnswerMarkers(text, n); !reflect.DeepEqual(got, want) {
			t.Fatalf("findAnswerMarkers(%q, %d) = %v, want %v", text, n, got, want)
		}
	}
}

func TestFindAnswerMarkersMatchesRegexp(t *testing.T) {
	for _, s := range markerSeeds {
		checkMarkers(t, s)
	}
	// The answer corpus: every response text the parser is tested on.
	files, _ := filepath.Glob("testdata/answers/*")
	if len(files) == 0 {
		t.Fatal("no corpus files under testdata/answers")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkMarkers(t, string(b))
		for _, line := range strings.Split(string(b), "\n") {
			checkMarkers(t, line)
		}
	}
}

func FuzzFindAnswerMarkers(f *testing.F) {
	for _, s := range markerSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) { checkMarkers(t, text) })
}
