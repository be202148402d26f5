// Intrusive G lists, linked by GID through G.schedlink.
// SPDX-License-Identifier: BSD-3-Clause

package sched

// gList is a FIFO of Gs linked through G.schedlink. Mirrors the runtime's
// gQueue. It stores GIDs only, so pushing from IRQ context writes no Go
// pointers. A G is on at most one gList at a time. The zero value is empty.
// Not synchronised: the owner of the list's lock (or the sole owner) uses it.
type gList struct {
	head, tail GID
	size       int32
}

// pushBack appends gp.
func (s *Sched) listPushBack(l *gList, gp GID) {
	s.allg[gp].schedlink = 0
	if l.tail == 0 {
		l.head = gp
	} else {
		s.allg[l.tail].schedlink = gp
	}
	l.tail = gp
	l.size++
}

// listPushFront prepends gp.
func (s *Sched) listPushFront(l *gList, gp GID) {
	s.allg[gp].schedlink = l.head
	l.head = gp
	if l.tail == 0 {
		l.tail = gp
	}
	l.size++
}

// listPop removes and returns the first G, or 0.
func (s *Sched) listPop(l *gList) GID {
	gp := l.head
	if gp == 0 {
		return 0
	}
	l.head = s.allg[gp].schedlink
	if l.head == 0 {
		l.tail = 0
	}
	s.allg[gp].schedlink = 0
	l.size--
	return gp
}

// listRemove unlinks gp, whose predecessor is prev (0 if gp is the head).
// Used by policies that scan (fair).
func (s *Sched) listRemove(l *gList, prev, gp GID) {
	next := s.allg[gp].schedlink
	if prev == 0 {
		l.head = next
	} else {
		s.allg[prev].schedlink = next
	}
	if l.tail == gp {
		l.tail = prev
	}
	s.allg[gp].schedlink = 0
	l.size--
}
