// Hosted test of the page: the template renders every section (the guest is not needed).
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"strings"
	"testing"
)

func TestPage(t *testing.T) {
	st := Stats{
		Policy:   "gmp",
		Interval: 1.01,
		Cores:    []Counter{{Name: "core 0", Total: 10, PerSec: 4}, {Name: "core 1", Total: 20, PerSec: 2}},
		Sched:    []Counter{{Name: "steals", Total: 3, PerSec: 1.25, Meaning: schedMeaning[5]}},
		Net:      []Counter{{Name: "sockets", Total: 2, Gauge: true}, {Name: "ready_irq", Total: 7, PerSec: 0.5}},
	}
	var b strings.Builder
	if err := page.Execute(&b, st); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<b>gmp</b>, 2 cores", "core 1", "width:100%", "width:50%", ">1.2<", "stole work", "ready_irq", ">—<", "1.01 s ago"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("page lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := page.Execute(&b, Stats{Error: "This is not gmpos"}); err != nil || !strings.Contains(b.String(), "This is not gmpos") || strings.Contains(b.String(), "<h2>") {
		t.Errorf("error page: %v\n%s", err, b.String())
	}
}
