// Lock-free state dump, in the spirit of GODEBUG=schedtrace=1.
// SPDX-License-Identifier: BSD-3-Clause

package sched

import "strconv"

// AppendTrace appends a one-line summary of the scheduler state to buf,
// like the runtime's schedtrace output:
//
//	SCHED np=4 idle=1 spinning=0 live=12 grq=3 [P0 cur=5 runq=2 next=7 tick=40] ...
//
// It takes no locks (the figures are racy snapshots, which is what a
// debugger of a stuck machine wants) and allocates only if buf lacks
// capacity (the kernel passes a fixed buffer; about 64 bytes per P).
func (s *Sched) AppendTrace(buf []byte) []byte {
	buf = append(buf, "SCHED np="...)
	buf = strconv.AppendInt(buf, int64(s.np), 10)
	buf = append(buf, " idle="...)
	buf = strconv.AppendInt(buf, int64(s.npidle()), 10)
	buf = append(buf, " spinning="...)
	buf = strconv.AppendInt(buf, int64(s.nmspinning.Load()), 10)
	buf = append(buf, " live="...)
	buf = strconv.AppendInt(buf, int64(s.ngLive.Load()), 10)
	buf = append(buf, " grq="...)
	buf = strconv.AppendInt(buf, int64(s.grqSize.Load()), 10)
	for i := int32(0); i < s.np; i++ {
		pp := &s.allp[i]
		buf = append(buf, " [P"...)
		buf = strconv.AppendInt(buf, int64(i), 10)
		if s.pidle.Load()&(1<<uint(i)) != 0 {
			buf = append(buf, " idle"...)
		}
		buf = append(buf, " cur="...)
		buf = strconv.AppendUint(buf, uint64(pp.curg.Load()), 10)
		buf = append(buf, " runq="...)
		buf = strconv.AppendUint(buf, uint64(pp.runqlen()), 10)
		buf = append(buf, " next="...)
		buf = strconv.AppendUint(buf, uint64(pp.runnext.Load()), 10)
		buf = append(buf, " switches="...)
		buf = strconv.AppendUint(buf, pp.stats.Get(StatCtxSwitch), 10)
		buf = append(buf, ']')
	}
	return buf
}
