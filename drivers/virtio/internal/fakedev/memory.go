// Pages for a PageAlloc, carved from one Go slab that the Memory keeps alive.
// SPDX-License-Identifier: BSD-3-Clause

package fakedev

import "unsafe"

const pageSize = 4096

// Memory hands out zeroed, 4 KiB-aligned pages of one Go slab. Go's collector does not move
// heap objects, so the addresses stay valid while the Memory is reachable.
type Memory struct {
	slab  []byte
	base  uintptr
	pages int
	next  int
	Fail  bool // Alloc fails (tests of allocation failure)
}

// NewMemory makes a Memory of n pages.
func NewMemory(n int) *Memory {
	m := &Memory{slab: make([]byte, (n+1)*pageSize), pages: n}
	a := uintptr(unsafe.Pointer(&m.slab[0]))
	m.base = (a + pageSize - 1) &^ (pageSize - 1)
	return m
}

// Alloc is a virtio.PageAlloc.
func (m *Memory) Alloc() (virt uintptr, phys uint64, ok bool) {
	if m.Fail || m.next >= m.pages {
		return 0, 0, false
	}
	v := m.base + uintptr(m.next)*pageSize
	m.next++
	return v, uint64(v), true
}

// Contains reports whether [a, a+n) lies in pages handed out.
func (m *Memory) Contains(a uintptr, n int) bool {
	return a >= m.base && a+uintptr(n) <= m.base+uintptr(m.next)*pageSize && n >= 0
}

// ptr converts an address to a pointer (addresses here are inside live Go objects).
func ptr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }

// Bytes is the n bytes at address a, as a slice.
func Bytes(a uintptr, n int) []byte { return unsafe.Slice((*byte)(ptr(a)), n) }
