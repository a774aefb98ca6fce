package main

import (
	"reflect"
	"testing"
)

func TestHeadersAndMissing(t *testing.T) {
	page := `<table><thead><tr><th class="l">arm</th><th class="r">Δ accuracy &amp; CI</th><th><span>calls/q</span></th></tr></thead>
<tbody><tr><th>not a header</th><td>1</td></tr></tbody></table>`
	hs := headers(page)
	if want := []string{"arm", "Δ accuracy & CI", "calls/q"}; !reflect.DeepEqual(hs, want) {
		t.Fatalf("headers %q, want %q", hs, want)
	}
	// Wrapped in its cell, a header is still found; a cut-off one is not.
	text := "arm Δ accuracy calls\n& CI 0.1\n"
	if got := missing(hs, text); !reflect.DeepEqual(got, []string{"calls/q"}) {
		t.Errorf("missing %q, want [calls/q]", got)
	}
}
