package sim

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm"
)

// The core as an llm.Client: its errors, latency, usage, malformed answers,
// fences and injected faults, on its own first answer. (Teamwork's kinds
// are tested in teamwork/simcore_*_test.go.)

func TestErrors(t *testing.T) {
	items := map[string]Item{
		"ok":      {Letters: letters(4), Gold: "B"},
		"badgold": {Letters: letters(4), Gold: "Z"},
		"oneopt":  {Letters: letters(1), Gold: "A"},
	}
	m := New(mustProfile(t, "default"), items)
	ctx := context.Background()
	cases := []struct {
		name  string
		req   llm.Request
		class llm.ErrorClass
		says  string
	}{
		{"unknown id", agentReq("nope-17", letters(4), kindFirst, 0, 0, 1, true, ""), llm.ClassBadRequest, "nope-17"},
		{"unknown kind", agentReq("ok", letters(4), string("dance"), 0, 0, 1, true, ""), llm.ClassBadRequest, "dance"},
		{"gold not a letter", agentReq("badgold", letters(4), kindFirst, 0, 0, 1, true, ""), llm.ClassBadRequest, "badgold"},
		{"one option", agentReq("oneopt", letters(1), kindFirst, 0, 0, 1, true, ""), llm.ClassBadRequest, "oneopt"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := m.Chat(ctx, tc.req)
			var e *llm.Error
			if !errors.As(err, &e) || e.Class != tc.class {
				t.Fatalf("error = %v, want class %s", err, tc.class)
			}
			if !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("error %q does not name %q", err, tc.says)
			}
		})
	}

	slow := mustProfile(t, "slow")
	ms := New(slow, items)
	req := agentReq("ok", letters(4), kindFirst, 0, 0, 1, true, "")
	t.Run("canceled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		go func() { time.Sleep(2 * time.Millisecond); cancel() }()
		_, err := ms.Chat(cctx, req)
		if llm.ClassOf(err) != llm.ClassCanceled || !errors.Is(err, context.Canceled) {
			t.Fatalf("error = %v, want canceled wrapping context.Canceled", err)
		}
	})
	t.Run("already canceled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := m.Chat(cctx, req); llm.ClassOf(err) != llm.ClassCanceled {
			t.Fatalf("error = %v, want canceled", err)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		dctx, cancel := context.WithTimeout(ctx, 2*time.Millisecond)
		defer cancel()
		_, err := ms.Chat(dctx, req)
		if llm.ClassOf(err) != llm.ClassTimeout || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error = %v, want timeout wrapping DeadlineExceeded", err)
		}
	})
}

func TestLatency(t *testing.T) {
	items, ids := synthItems(5, 4)
	m := New(mustProfile(t, "slow"), items)
	for i, id := range ids {
		req := agentReq(id, items[id].Letters, kindFirst, 0, 0, int64(i), true, "")
		start := time.Now()
		resp := mustChat(t, m, req)
		el := time.Since(start)
		if resp.Latency < 10*time.Millisecond || resp.Latency > 30*time.Millisecond {
			t.Fatalf("Latency %v outside 20ms ± 50%%", resp.Latency)
		}
		if el < resp.Latency {
			t.Fatalf("returned after %v, before the simulated %v", el, resp.Latency)
		}
		if resp.Attempts != 1 || resp.Cached {
			t.Fatalf("Attempts %d Cached %v", resp.Attempts, resp.Cached)
		}
	}
	fast := New(mustProfile(t, "default"), items)
	if resp := mustChat(t, fast, agentReq(ids[0], letters(4), kindFirst, 0, 0, 1, true, "")); resp.Latency != 0 {
		t.Fatalf("default profile latency %v, want 0", resp.Latency)
	}
}

func TestUsage(t *testing.T) {
	items, ids := synthItems(1, 4)
	m := New(mustProfile(t, "default"), items)
	req := agentReq(ids[0], letters(4), kindFirst, 0, 0, 1, true, "")
	resp := mustChat(t, m, req)
	bytes := 0
	for _, msg := range req.Messages {
		bytes += len(msg.Content)
	}
	if want := (bytes+3)/4 + 4*len(req.Messages); resp.Usage.PromptTokens != want {
		t.Fatalf("PromptTokens %d, want %d", resp.Usage.PromptTokens, want)
	}
	if want := (len(resp.Text) + 3) / 4; resp.Usage.CompletionTokens != max(1, want) {
		t.Fatalf("CompletionTokens %d, want %d", resp.Usage.CompletionTokens, want)
	}
	// An empty answer still costs at least one token.
	p := mustProfile(t, "default")
	p.MalformedRate = 1
	me := New(p, items)
	for s := int64(0); s < 50; s++ {
		req.Seed = s
		r := mustChat(t, me, req)
		if r.Usage.CompletionTokens < 1 || r.Usage.PromptTokens < 1 {
			t.Fatalf("usage %+v, want ≥ 1", r.Usage)
		}
	}
}

func TestMalformedRateOne(t *testing.T) {
	items, ids := synthItems(200, 4)
	p := mustProfile(t, "default")
	p.MalformedRate = 1
	m := New(p, items)
	valid := 0
	shapes := map[string]int{}
	for i, id := range ids {
		text := mustChat(t, m, agentReq(id, letters(4), kindFirst, 0, 0, int64(i), true, "")).Text
		if _, _, ok := firstChoice(text); ok {
			valid++
		}
		switch {
		case text == "":
			shapes["empty"]++
		case strings.HasPrefix(text, "**"):
			shapes["bold"]++
		case strings.HasPrefix(text, "The answer is $"):
			shapes["latex"]++
		case strings.HasPrefix(text, "{"):
			shapes["truncated"]++
		default:
			shapes["prose"]++
		}
	}
	if valid > len(ids)/10 {
		t.Fatalf("%d of %d answers were valid JSON with MalformedRate 1", valid, len(ids))
	}
	if len(shapes) != 5 {
		t.Fatalf("malformed shapes seen: %v; want all five", shapes)
	}
}

func TestFences(t *testing.T) {
	items, ids := synthItems(300, 4)
	p := mustProfile(t, "noisy")
	p.MalformedRate = 0
	m := New(p, items)
	fenced := 0
	for i, id := range ids {
		text := mustChat(t, m, agentReq(id, letters(4), kindFirst, 0, 0, int64(i), true, "")).Text
		if strings.Contains(text, "```json\n") {
			fenced++
		}
		if _, _, ok := firstChoice(text); !ok {
			t.Fatalf("fenced answer does not decode: %q", text)
		}
		plain := mustChat(t, m, agentReq(id, letters(4), kindFirst, 0, 0, int64(i), false, "")).Text
		if strings.Contains(plain, "```") {
			t.Fatalf("plain answer fenced: %q", plain)
		}
	}
	if fenced < 30 || fenced > 90 {
		t.Fatalf("%d of %d answers fenced, want about 20%%", fenced, len(ids))
	}
}

func TestFlakyRetries(t *testing.T) {
	items, ids := synthItems(300, 4)
	flaky := New(mustProfile(t, "flaky"), items)
	clean := New(mustProfile(t, "default"), items)
	classes := map[llm.ErrorClass]int{}
	failed := 0
	for i, id := range ids {
		req := agentReq(id, letters(4), kindFirst, 0, 0, int64(i), true, "")
		want := mustChat(t, clean, req).Text
		for attempt := 0; ; attempt++ {
			resp, err := flaky.Chat(context.Background(), req)
			if err == nil {
				if resp.Text != want {
					t.Fatalf("answer after %d failures differs from the fault-free answer", attempt)
				}
				break
			}
			c := llm.ClassOf(err)
			if !c.Retryable() {
				t.Fatalf("injected fault %v is not retryable", err)
			}
			classes[c]++
			if attempt == 0 {
				failed++
			}
			if attempt > 20 {
				t.Fatalf("request still failing after %d attempts", attempt)
			}
		}
	}
	if failed < 30 || failed > 90 {
		t.Fatalf("%d of %d first attempts failed, want about 20%%", failed, len(ids))
	}
	if len(classes) != 3 {
		t.Fatalf("fault classes %v, want rate_limited, server and timeout", classes)
	}
}
