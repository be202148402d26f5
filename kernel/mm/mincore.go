// mincore(2): which pages of a range are resident.
// SPDX-License-Identifier: BSD-3-Clause

package mm

// Mincore reports, for up to len(vec) pages from start (page aligned), whether each is resident:
// vec[i] = 1 for a page present in the page table, 0 for one not yet touched or discarded. Like
// Linux's do_mincore it stops at the end of the VMA that holds start and returns how many pages
// it filled; ENOMEM if start is in no VMA. The caller (the system call) validates the range and
// copies vec out in chunks. Trap-context safe; mm lock taken.
func (as *AddressSpace) Mincore(start uintptr, vec []byte) (int, Errno) {
	lockMM()
	defer unlockMM()
	i := as.lookup(start)
	if i < 0 {
		return 0, ENOMEM
	}
	n := 0
	for va := start; n < len(vec) && va < as.vmas[i].End; va += PageSize {
		vec[n] = 0
		if as.PT.leaf(va) != 0 {
			vec[n] = 1
		}
		n++
	}
	return n, OK
}
