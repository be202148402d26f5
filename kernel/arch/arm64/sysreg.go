// Declarations of sysreg_arm64.s: one system register or privileged instruction each.
// SPDX-License-Identifier: BSD-3-Clause

//go:build arm64

package arm64

func readTPIDR1() uintptr
func writeTPIDR1(v uintptr)
func readMPIDR() uint64
func readMIDR() uint64
func readISAR0() uint64
func readISAR1() uint64
func readPFR0() uint64
func readTTBR0() uint64
func writeTTBRs(root uintptr)
func tlbiVA(va uintptr)
func tlbiAll()
func cntvct() uint64
func cntfrq() uint64
func setTimer(cval, ctl uint64)
func stopTimer()
func wfi()
func yield()
func dmbISH()
func rndr() (v uint64, ok bool)
func semihost(op uint64, arg uintptr) uint64
func gicv3EOI(v uint64)
func gicv3CPUInit()
func gicv3SGI(v uint64)
func hvcCall(fn, a1, a2, a3 uint64) uint64
func smcCall(fn, a1, a2, a3 uint64) uint64

// MIDR, ISAR0, ISAR1 and PFR0 return the ID registers the Linux ABI reports (AT_HWCAP,
// /proc/cpuinfo): MIDR_EL1, ID_AA64ISAR0_EL1, ID_AA64ISAR1_EL1, ID_AA64PFR0_EL1.
func MIDR() uint64  { return readMIDR() }
func ISAR0() uint64 { return readISAR0() }
func ISAR1() uint64 { return readISAR1() }
func PFR0() uint64  { return readPFR0() }

func dsb()
func cleanToPoC(va uintptr)
func dsbSY()
func translates(va uintptr, write bool) bool
func sev()

// CleanInvalidate writes back and invalidates the data cache over [va, va+n): for memory another
// bus master reads or writes (sysreg_arm64.s).
func CleanInvalidate(va, n uintptr)

// SyncICache makes code the kernel stored at [va, va+n) visible to instruction fetch on every
// core (sysreg_arm64.s).
func SyncICache(va, n uintptr)
