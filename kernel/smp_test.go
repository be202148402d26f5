// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "testing"

// TestSectionOpen: a thread made runnable in a BKL section may be resumed without the lock only
// once that section has ended (wake_unlocked.go): not while it holds the lock, but during a later
// section, or with the lock free.
func TestSectionOpen(t *testing.T) {
	const gp = 5
	defer func() { threads[gp] = Thread{} }()
	bklLock(0)
	markRunnable(gp)
	if !sectionOpen(gp) {
		t.Error("the section that made the thread runnable still holds the BKL: want open")
	}
	bklUnlock()
	if sectionOpen(gp) {
		t.Error("the BKL is free: the section has ended")
	}
	bklLock(1)
	if sectionOpen(gp) {
		t.Error("another core's later section holds the BKL: the thread's section has ended")
	}
	markRunnable(gp) // made runnable again, by this section
	if !sectionOpen(gp) {
		t.Error("made runnable again in the open section: want open")
	}
	bklUnlock()
	if sectionOpen(gp) {
		t.Error("the BKL is free again: want closed")
	}
}
