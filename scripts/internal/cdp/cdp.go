// Package cdp drives a headless Chromium through the DevTools protocol over
// --remote-debugging-pipe, for the report and viewer end-to-end checks
// (scripts/e2e-report, scripts/e2e-view).
package cdp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// timeoutClose bounds how long Close waits for Chromium to quit.
const timeoutClose = 5 * time.Second

// Browser is a Chromium started with --remote-debugging-pipe: the DevTools
// protocol as NUL-terminated JSON messages, commands on the child's fd 3 and
// replies and events on its fd 4. No websocket, no port.
type Browser struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	w      io.WriteCloser // commands
	r      io.ReadCloser  // replies and events

	mu      sync.Mutex
	nextID  int
	pending map[int]chan Message
	onEvent func(Message)
	done    chan struct{} // closed when the reader stops
	readErr error
}

// Message is any DevTools Message: a reply (ID set) or an event (Method set).
type Message struct {
	ID        int             `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"Message"`
	} `json:"error,omitempty"`
}

// Start runs chromium with args plus the pipe, and onEvent for every
// event (called from the reader goroutine).
func Start(chromium string, args []string, onEvent func(Message)) (*Browser, error) {
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	resR, resW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	b := &Browser{stderr: &bytes.Buffer{}, w: cmdW, r: resR, pending: map[int]chan Message{},
		onEvent: onEvent, done: make(chan struct{})}
	b.cmd = exec.Command(chromium, append(args, "--remote-debugging-pipe")...)
	b.cmd.Stdout = io.Discard
	b.cmd.Stderr = &lockedWriter{b: b.stderr, mu: &b.mu}
	b.cmd.ExtraFiles = []*os.File{cmdR, resW} // fd 3, fd 4
	if err := b.cmd.Start(); err != nil {
		return nil, err
	}
	cmdR.Close()
	resW.Close()
	go b.read()
	return b, nil
}

type lockedWriter struct {
	b  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (b *Browser) read() {
	defer close(b.done)
	sc := bufio.NewScanner(b.r)
	sc.Buffer(make([]byte, 1<<20), 256<<20) // screenshots come back as one Message
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexByte(data, 0); i >= 0 {
			return i + 1, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	for sc.Scan() {
		var m Message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			b.readErr = fmt.Errorf("bad DevTools Message: %w", err)
			return
		}
		b.dispatch(m)
	}
	b.readErr = sc.Err()
}

func (b *Browser) dispatch(m Message) {
	if m.ID == 0 {
		b.onEvent(m)
		return
	}
	b.mu.Lock()
	ch := b.pending[m.ID]
	delete(b.pending, m.ID)
	b.mu.Unlock()
	if ch != nil {
		ch <- m
	}
}

// Call sends a command (to a page session when session is set) and decodes
// its result into out (when not nil).
func (b *Browser) Call(ctx context.Context, session, method string, params, out any) error {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan Message, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	if params == nil {
		params = struct{}{}
	}
	req, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params, "sessionId": session})
	if err != nil {
		return err
	}
	if session == "" {
		req, _ = json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	}
	if _, err := b.w.Write(append(req, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-b.done:
		return fmt.Errorf("%s: the browser closed the pipe (%v)", method, b.readErr)
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// Close asks the browser to quit, then kills it if it does not.
func (b *Browser) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), timeoutClose)
	defer cancel()
	_ = b.Call(ctx, "", "Browser.close", nil, nil)
	exited := make(chan error, 1)
	go func() { exited <- b.cmd.Wait() }()
	select {
	case <-exited:
	case <-ctx.Done():
		_ = b.cmd.Process.Kill()
		<-exited
	}
	b.w.Close()
}

// StderrTail is the last n bytes Chromium wrote to its standard error.
func (b *Browser) StderrTail(n int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stderr.Bytes()
	if len(s) > n {
		s = s[len(s)-n:]
	}
	return string(s)
}

var errTimeout = errors.New("timed out")

// EvalString evaluates expr in the page of session (awaiting it when it is
// a promise) and returns its value, which the expression must make a string
// (e.g. JSON.stringify of what it found); a script exception is an error.
func (b *Browser) EvalString(ctx context.Context, session, expr string) (string, error) {
	var res struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	params := map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}
	if err := b.Call(ctx, session, "Runtime.evaluate", params, &res); err != nil {
		return "", err
	}
	if res.Exception != nil {
		return "", fmt.Errorf("script exception: %s", res.Exception.Text)
	}
	return res.Result.Value, nil
}
