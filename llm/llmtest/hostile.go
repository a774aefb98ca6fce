package llmtest

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// inject serves fault f; it reports whether the request is done. Only a
// Slow fault is not: it waits, and the normal answer follows.
func (s *Server) inject(w http.ResponseWriter, r *http.Request, body []byte, f Fault) bool {
	switch f.Kind {
	case FaultStatus:
		s.failStatus(w, f)
	case FaultMalformed:
		malformed(w, f.Body)
	case FaultTruncated:
		truncate(w, s.handle(r, body))
	case FaultHang:
		return s.hang(r, f.Delay)
	case FaultReset:
		reset(w)
	case FaultNoUsage, FaultEmptyChoices:
		s.write(w, s.handleWith(r, body, f.Kind, ""))
	case FaultOversize:
		s.oversize(w, f.Size)
	case FaultEcho:
		s.echo(w, r, body, f.Status)
	default:
		return false
	}
	return true
}

// failStatus answers with f.Status (500 when it is not a valid status),
// f.RetryAfter as Retry-After when set, and f.Body or else the flavour's
// error body.
func (s *Server) failStatus(w http.ResponseWriter, f Fault) {
	code := f.Status
	if code < 100 || code > 999 {
		code = http.StatusInternalServerError
	}
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	b := []byte(f.Body)
	if f.Body == "" {
		b = s.errorBody(code, fmt.Sprintf("injected fault: HTTP %d", code), "")
	}
	writeError(w, code, b)
}

// writeError sends an error answer: status code and JSON body b.
func writeError(w http.ResponseWriter, code int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(b)
}

// malformed answers 200 with body, or an HTML page when body is "".
func malformed(w http.ResponseWriter, body string) {
	if body == "" {
		body = "<html><body>this is not JSON</body></html>"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, body)
}

// truncate sends the first half of res's body under a Content-Length
// announcing the whole, then closes the connection.
func truncate(w http.ResponseWriter, res result) {
	conn, buf, err := hijack(w)
	if err != nil {
		return
	}
	defer conn.Close()
	ct := res.header.Get("Content-Type")
	if ct == "" {
		ct = "application/json"
	}
	fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
		res.status, http.StatusText(res.status), ct, len(res.body))
	buf.Write(res.body[:len(res.body)/2])
	buf.Flush()
}

// hang holds the request until the client gives up or the server closes
// (the request is done), or, when delay > 0, until delay has passed (it is
// not: the normal answer follows).
func (s *Server) hang(r *http.Request, delay time.Duration) (done bool) {
	var after <-chan time.Time
	if delay > 0 {
		t := time.NewTimer(delay)
		defer t.Stop()
		after = t.C
	}
	select {
	case <-r.Context().Done():
		return true
	case <-s.closing:
		return true
	case <-after:
		return false
	}
}

// reset closes the connection with a TCP RST, without answering.
func reset(w http.ResponseWriter) {
	conn, _, err := hijack(w)
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// echo echoes the request's credentials (see FaultEcho): in an error body
// of status code, or with code 0 appended to a normal answer's text.
func (s *Server) echo(w http.ResponseWriter, r *http.Request, body []byte, code int) {
	echo := echoCredentials(r.Header.Get("Authorization"))
	if code != 0 {
		writeError(w, code, s.errorBody(code, "request failed; it carried "+echo, ""))
		return
	}
	s.write(w, s.handleWith(r, body, FaultEcho, " [debug: request carried "+echo+"]"))
}

// echoCredentials renders an Authorization header the way a careless
// server logs it: as sent, and for Basic auth decoded too.
func echoCredentials(auth string) string {
	out := fmt.Sprintf("Authorization: %q", auth)
	if b64, ok := strings.CutPrefix(auth, "Basic "); ok {
		if dec, err := base64.StdEncoding.DecodeString(b64); err == nil {
			user, pass, _ := strings.Cut(string(dec), ":")
			out += fmt.Sprintf(" (basic %s, user %s, password %s)", dec, user, pass)
		}
	}
	if key, ok := strings.CutPrefix(auth, "Bearer "); ok {
		out += " (api key " + key + ")"
	}
	return out
}

// oversize streams a well-formed 200 answer whose text is size bytes of
// filler, in chunks, so the server never holds it.
func (s *Server) oversize(w http.ResponseWriter, size int64) {
	var head, tail string
	if s.flavor == FlavorOpenAI {
		head = `{"id":"chatcmpl-oversize","object":"chat.completion","created":0,"model":"` + s.models[0] +
			`","choices":[{"index":0,"message":{"role":"assistant","content":"`
		tail = `"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	} else {
		head = `{"model":"` + s.models[0] + `","created_at":"2024-01-01T00:00:00Z","message":{"role":"assistant","content":"`
		tail = `"},"done":true,"done_reason":"stop","prompt_eval_count":1,"eval_count":1}`
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(int64(len(head))+size+int64(len(tail))))
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, head)
	chunk := []byte(strings.Repeat("The answer is A. ", 4096))
	for left := size; left > 0; {
		n := min(left, int64(len(chunk)))
		if _, err := w.Write(chunk[:n]); err != nil {
			return // the client hung up, as it should
		}
		left -= n
	}
	io.WriteString(w, tail)
}

// hijack takes over the connection from the HTTP server, answering 500
// when it cannot.
func hijack(w http.ResponseWriter) (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "hijacking not supported", http.StatusInternalServerError)
		return nil, nil, fmt.Errorf("hijacking not supported")
	}
	return hj.Hijack()
}
