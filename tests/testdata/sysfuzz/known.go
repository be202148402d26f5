// Guest: sysfuzz's list of known kernel bugs, which -known keeps it from provoking again.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"fmt"
	"sort"
	"strings"
)

// knownBugs are kernel bugs the fuzzer has found and that are not fixed yet: while one of them is
// open, every run stops at it, so to look for the next one name it in -known. The default run
// (and TestGuestSysfuzz) provokes all of them. Each entry says which calls it skips; remove it
// once the kernel is fixed. None is open. Fixed and removed: info-wrap (gmpos_info's n*8 wrapped
// past the range check: kernel/util.go userArray), epoll-stale (events written later into a buffer
// unmapped meanwhile: kernel/epoll.go checks each event's slot when it writes it), fault-siginfo (a
// fault's siginfo lost to a lower-numbered signal: kernel/signal.go delivers synchronous signals
// first), recv-addr (recvfrom skipped the address at the end of a stream and with a NULL
// addrlen: kernel/fd_socket.go sockEOF, sysRecvfrom), stack-errno (gmpos_net took socket errors
// up to 4095: netabi.MaxErrno). Removed as not the kernel's: churn-corruption (memory damaged in long runs with thread
// churn) was the fuzzer's filter letting the kernel write where it had been told to — an
// unlisted MADV_DONTNEED_LOCKED, and a thread id used as a pointer (filter.go writeOK); and heap
// damage with live sockets, a write length that wrapped (writeOK again).
var knownBugs = map[string]func(w *worker, nr uint64, a *[6]uint64) bool{}

// setKnown parses -known.
func (f *fuzzer) setKnown(list string) error {
	f.known = map[string]bool{}
	if list == "" {
		return nil
	}
	for _, k := range strings.Split(list, ",") {
		if k == "all" {
			for name := range knownBugs {
				f.known[name] = true
			}
			continue
		}
		if knownBugs[k] == nil {
			names := make([]string, 0, len(knownBugs))
			for name := range knownBugs {
				names = append(names, name)
			}
			sort.Strings(names)
			return fmt.Errorf("-known: no known bug %q (known: %s)", k, strings.Join(names, ", "))
		}
		f.known[k] = true
	}
	return nil
}

// knownRule skips calls that would provoke a known bug named in -known.
func (w *worker) knownRule(nr uint64, a *[6]uint64) string {
	for name := range w.f.known {
		if knownBugs[name](w, nr, a) {
			return "known kernel bug " + name
		}
	}
	return ""
}

// pinnedBuf reports whether p lies in memory no call of the fuzzer can unmap: the worker's arena
// slot (a pinned image VMA) or its heap buffer.
func (w *worker) pinnedBuf(p uint64) bool {
	heap := uint64(uintptrOf(&w.heap[0]))
	return p >= uint64(w.slot) && p < uint64(w.slot)+slotSize || p >= heap && p < heap+uint64(len(w.heap))
}
