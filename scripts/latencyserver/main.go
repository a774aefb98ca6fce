// Command latencyserver serves llmtest.LatencyServer on loopback for
// scripts/throughput.sh: an OpenAI-compatible endpoint that answers after
// -delay and serves at most -cap requests at once (queueing the rest, or
// answering them 429 with -reject). It prints its base URL, then serves
// until killed; GET /stats gives its counters and the achieved rate against
// the bound cap/delay.
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
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "latencyserver:", err)
		os.Exit(1)
	}
	srv := llmtest.NewLatencyServer(*capacity, *delay, *reject)
	fmt.Printf("http://%s/v1\n", ln.Addr())
	hs := &http.Server{Handler: srv, ConnState: srv.ConnState}
	if err := hs.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, "latencyserver:", err)
		os.Exit(1)
	}
}
