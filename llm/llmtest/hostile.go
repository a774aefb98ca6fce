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

// inject serves fault f; it reports whether the request is done.
func (s *Server) inject(w http.ResponseWriter, r *http.Request, body []byte, f Fault) bool {
	switch f.Kind {
	case FaultStatus:
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
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		w.Write(b)
		return true
	case FaultMalformed:
		b := f.Body
		if f.Body == "" {
			b = "<html><body>this is not JSON</body></html>"
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, b)
		return true
	case FaultTruncated:
		res := s.handle(r, body)
		conn, buf, err := hijack(w)
		if err != nil {
			return true
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
		return true
	case FaultHang:
		var after <-chan time.Time
		if f.Delay > 0 {
			t := time.NewTimer(f.Delay)
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
	case FaultReset:
		conn, _, err := hijack(w)
		if err != nil {
			return true
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		conn.Close()
		return true
	case FaultNoUsage, FaultEmptyChoices:
		s.write(w, s.handleWith(r, body, f.Kind, ""))
		return true
	case FaultOversize:
		s.oversize(w, f.Size)
		return true
	case FaultEcho:
		echo := echoCredentials(r.Header.Get("Authorization"))
		if f.Status != 0 {
			b := s.errorBody(f.Status, "request failed; it carried "+echo, "")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(f.Status)
			w.Write(b)
			return true
		}
		s.write(w, s.handleWith(r, body, FaultEcho, " [debug: request carried "+echo+"]"))
		return true
	}
	return false
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

func hijack(w http.ResponseWriter) (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "hijacking not supported", http.StatusInternalServerError)
		return nil, nil, fmt.Errorf("hijacking not supported")
	}
	return hj.Hijack()
}
