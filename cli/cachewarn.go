package cli

import (
	"fmt"
	"io"
	"sync"

	"github.com/medteam-bench/medteam/llm/cache"
)

// cacheNotes says when the response cache fails to store answers: once, at
// the first failed write, with its count (a warning line), and in the run's
// summary with the total. A failed write never stops the run: the answers
// are in the journal, only the next run cannot take them from the cache.
type cacheNotes struct {
	mu     sync.Mutex
	out    func(string) // where the warning goes; nil: held until setOut
	held   []string
	caches []openCache
}

type openCache struct {
	path string
	db   *cache.Cache
}

// watch registers db (the cache file at path) and its first-failure warning.
func (n *cacheNotes) watch(path string, db *cache.Cache) {
	n.mu.Lock()
	n.caches = append(n.caches, openCache{path, db})
	n.mu.Unlock()
	db.OnWriteFailure(func(lost int64, err error) {
		n.say(fmt.Sprintf("warning: the response cache %s could not store %d answer(s): %v; the run goes on (its results are in the run directory), but answers not stored will be asked of the model again next time; the summary gives the total",
			path, lost, err))
	})
}

// say prints msg where warnings go, or holds it until there is such a place.
func (n *cacheNotes) say(msg string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.out == nil {
		n.held = append(n.held, msg)
		return
	}
	n.out(msg)
}

// setOut sends warnings to out from now on, the held ones first (nil n:
// no cache, nothing to say).
func (n *cacheNotes) setOut(out func(string)) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.out = out
	for _, m := range n.held {
		out(m)
	}
	n.held = nil
}

// summary prints, for each cache that lost answers, how many of those
// offered it could not store.
func (n *cacheNotes) summary(w io.Writer) {
	if n == nil {
		return
	}
	n.mu.Lock()
	caches := n.caches
	n.mu.Unlock()
	for _, c := range caches {
		if st := c.db.Stats(); st.Unstored > 0 {
			fmt.Fprintf(w, "response cache %s: %d of %d answers could not be stored (write failures, e.g. a full disk); the results are complete, but those calls will be sent to the model again next time\n",
				c.path, st.Unstored, st.Queued)
		}
	}
}
