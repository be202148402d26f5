package mm

// The x86-64 additions to the mmap ABI (arch/x86/include/uapi/asm/mman.h on
// top of asm-generic/mman.h).

// x86-only mmap flags.
const (
	// MAP_32BIT places the mapping in the first 2 GiB, for programs that
	// store pointers in 32 bits (x86-64 only).
	MAP_32BIT = 0x40
	// MAP_ABOVE4G asks for a mapping above 4 GiB (Linux 6.4+, for shadow
	// stacks); every mapping gmpos chooses without a hint already is.
	MAP_ABOVE4G = 0x80
)

// mapLow32 is the flag that confines a mapping to [map32Base, map32End):
// arch/x86/kernel/sys_x86_64.c find_start_end() searches
// [0x40000000, 0x80000000) for MAP_32BIT, and a hint is honoured anywhere
// below 0x80000000 (arch_get_unmapped_area). Observed on Linux 6.18:
// mmap(0, 4096, RW, MAP_PRIVATE|MAP_ANONYMOUS|MAP_32BIT) = 0x41f36000, with a
// hint 0x10000000 = 0x10000000, and 1 GiB does not fit (ENOMEM).
const (
	mapLow32  = MAP_32BIT
	map32Base = 0x4000_0000
	map32End  = 0x8000_0000
)

// mapArchLegacy are the x86 flags MAP_SHARED_VALIDATE accepts besides the
// generic legacy ones (include/linux/mman.h LEGACY_MAP_MASK).
const mapArchLegacy = MAP_32BIT | MAP_ABOVE4G

// protArch are the PROT_ bits mprotect accepts besides PROT_READ|PROT_WRITE|
// PROT_EXEC|PROT_SEM: none on x86, which does not override
// arch_validate_prot() (include/linux/mman.h). (arm64 adds PROT_BTI and
// PROT_MTE when the CPU has them.)
const protArch = 0

// hugetlbShift reports whether 1<<shift is a huge page size the architecture
// has (MAP_HUGETLB with MAP_HUGE_SHIFT bits; hstate_sizelog() fails with
// EINVAL otherwise): 2 MiB and 1 GiB on x86-64. Observed on Linux 6.18: size
// log 21 and 30 give ENOMEM (no pool), 25 gives EINVAL.
func hugetlbShift(shift uint32) bool { return shift == 21 || shift == 30 }
