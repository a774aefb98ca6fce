// Command latencyserver serves llmtest.LatencyServer on loopback for
// scripts/throughput.sh: an OpenAI-compatible endpoint that answers after
// -delay and serves at most -cap requests at once (queueing the rest, or
// answering them 429 with -reject). It prints its base URL, then serves
// until killed; GET /stats gives its counters and the achieved rate against
// the bound cap/delay, and the prompt and cached tokens served. With
// -cache-rule it caches prompt prefixes (llmtest.PrefixCache), with -prefill
// it charges service time per uncached prompt token, and with -pad-words it
// pads its answers to a realistic length.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/medteam-bench/medteam/llm/llmtest"
)

func main() {
	capacity := flag.Int("cap", 16, "requests served at once")
	delay := flag.Duration("delay", 20*time.Millisecond, "service time of one request")
	reject := flag.Bool("reject", false, "answer requests beyond -cap with 429 and Retry-After: 1 instead of queueing them")
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	rule := flag.String("cache-rule", "none", "prompt-prefix cache rule: none, openai (≥ 1,024 tokens, 128-token steps) or vllm (16-token blocks)")
	prefill := flag.Duration("prefill", 0, "service time added per uncached prompt token (e.g. 20us)")
	pad := flag.Int("pad-words", 0, "pad every answer's free-text field to this many words (0: the short fixed answers)")
	flag.Parse()
	cr, err := llmtest.ParseCacheRule(*rule)
	if err != nil {
		fmt.Fprintln(os.Stderr, "latencyserver: -cache-rule:", err)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "latencyserver:", err)
		os.Exit(1)
	}
	srv := llmtest.NewLatencyServerWith(*capacity, *delay, *reject, llmtest.LatencyOptions{Cache: cr, Prefill: *prefill, PadWords: *pad})
	fmt.Printf("http://%s/v1\n", ln.Addr())
	hs := &http.Server{Handler: srv, ConnState: srv.ConnState}
	if err := hs.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, "latencyserver:", err)
		os.Exit(1)
	}
}
