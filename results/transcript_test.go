package results

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestCallRowTranscriptNotAColumn: the journal's transcript id is no column
// of calls.parquet (the file is the same whether texts were streamed or
// not), and a row without one stores no field for it in the journal.
func TestCallRowTranscriptNotAColumn(t *testing.T) {
	for _, f := range parquet.SchemaOf(CallRow{}).Fields() {
		if strings.Contains(strings.ToLower(f.Name()), "transcript") {
			t.Fatalf("calls.parquet has a column %q", f.Name())
		}
	}
	b, err := json.Marshal(CallRow{Prompt: "p"})
	if err != nil || strings.Contains(string(b), "Transcript") {
		t.Fatalf("journal JSON of a row without id: %s (%v)", b, err)
	}
	b, _ = json.Marshal(CallRow{Transcript: 7})
	var back CallRow
	if err := json.Unmarshal(b, &back); err != nil || back.Transcript != 7 {
		t.Fatalf("journal JSON loses the id: %s → %d (%v)", b, back.Transcript, err)
	}
}
