// The arm64 additions to the mmap ABI: none of x86's flags, arm64's huge page sizes.
// SPDX-License-Identifier: BSD-3-Clause

package mm

// arm64 uses asm-generic/mman.h as it is (arch/arm64/include/uapi/asm/mman.h
// adds only PROT_BTI 0x10 and PROT_MTE 0x20).

// There is no MAP_32BIT on arm64: Linux defines it to 0 for architectures
// without it (include/linux/mman.h), so 0x40 is an unknown flag there —
// ignored with MAP_PRIVATE, EOPNOTSUPP with MAP_SHARED_VALIDATE — and the
// flag test in place() never matches.
const (
	mapLow32  = 0
	map32Base = 0
	map32End  = 0
)

// mapArchLegacy: MAP_32BIT and MAP_ABOVE4G are 0 in LEGACY_MAP_MASK
// (include/linux/mman.h) on arm64, so MAP_SHARED_VALIDATE accepts only the
// generic legacy flags.
const mapArchLegacy = 0

// protArch are the PROT_ bits mprotect accepts besides PROT_READ|
// PROT_WRITE|PROT_EXEC|PROT_SEM. arm64's arch_validate_prot()
// (arch/arm64/include/asm/mman.h) adds PROT_BTI only if the system supports
// BTI and PROT_MTE only if it supports MTE. gmpos enables neither (no GP
// bit in its descriptors, no tag memory, no HWCAP2_BTI/HWCAP2_MTE in the
// auxv), so it answers as Linux does on a CPU without them — the Cortex-A53
// of the Raspberry Pi 3 and the Cortex-A72 of the Pi 4: EINVAL.
const protArch = 0

// hugetlbShift reports whether 1<<shift is a huge page size of arm64 with
// the 4 KiB granule (arch/arm64/mm/hugetlbpage.c arch_hugetlb_valid_size):
// 64 KiB (contiguous PTEs), 2 MiB (PMD), 32 MiB (contiguous PMDs) and
// 1 GiB (PUD). As on x86, a valid size gets ENOMEM (no pool) and any other
// EINVAL.
func hugetlbShift(shift uint32) bool {
	return shift == 16 || shift == 21 || shift == 25 || shift == 30
}
