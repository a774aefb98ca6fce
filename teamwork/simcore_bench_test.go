package teamwork_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
)

// benchPrompt pads a prompt to a realistic size (~3 KB of case text).
func benchPrompt(body string) string {
	stem := strings.Repeat("A 54-year-old man presents with two hours of crushing chest pain radiating to the left arm, diaphoresis and nausea. ", 25)
	return stem + "\n" + optionsBlock(letters(4)) + body
}

func benchItems() (map[string]Item, []string) { return synthItems(1000, 4) }

// runBench serves reqs round-robin. Besides ns/op and the allocation
// figures of ReportAllocs (whose allocs/op is truncated to an integer: a
// call allocates once — the response text — except for the few malformed
// answers that are constant strings), it reports calls/s and the exact
// allocations per call.
func runBench(b *testing.B, reqs []llm.Request, m *Model) {
	b.ReportAllocs()
	ctx := context.Background()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	i := 0
	for b.Loop() {
		if _, err := m.Chat(ctx, reqs[i%len(reqs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "calls/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(i), "allocs/call")
}

func BenchmarkChatPredictJSON(b *testing.B) {
	items, reqs := predictBenchReqs()
	runBench(b, reqs, New(mustProfile(b, "default"), items, testTeam))
}

func BenchmarkChatDiscussJSON(b *testing.B) {
	items, reqs := discussBenchReqs()
	runBench(b, reqs, New(mustProfile(b, "default"), items, testTeam))
}

func predictBenchReqs() (map[string]Item, []llm.Request) {
	items, ids := benchItems()
	reqs := make([]llm.Request, len(ids))
	for i, id := range ids {
		body := "YOUR ROLE: Cardiologist\nQUESTION ANALYSIS:\nThe stem asks for the diagnosis.\n"
		reqs[i] = agentReq(id, items[id].Letters, kindPredict, i%3, 0, int64(i), true, "")
		reqs[i].Messages[1].Content = benchPrompt(body)
	}
	return items, reqs
}

func discussBenchReqs() (map[string]Item, []llm.Request) {
	items, ids := benchItems()
	reqs := make([]llm.Request, len(ids))
	for i, id := range ids {
		ls := items[id].Letters
		body := "YOUR ROLE: Neurologist\nQUESTION ANALYSIS:\nThe stem asks for the diagnosis.\nVERIFIED FACTS:\n- " +
			factBank[i%sim.NFacts] + ".\n- " + factBank[(i+7)%sim.NFacts] + ".\n" +
			positionLine("you", rankWith(ls, ls[i%4]), 0.62)
		for a := 2; a <= 4; a++ {
			body += positionLine(fmt.Sprintf("agent %d", a), rankWith(ls, ls[(i+a)%4]), 0.7)
		}
		body += "POSITION leader: " + ls[i%4] + "\n"
		reqs[i] = agentReq(id, ls, kindDiscuss, 0, 2, int64(i), true, "")
		reqs[i].Messages[1].Content = benchPrompt(body)
	}
	return items, reqs
}
