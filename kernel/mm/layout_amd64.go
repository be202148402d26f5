package mm

// The x86-64 address-space layout (see the memory map in doc.go).

// canonical reports whether va is a canonical 48-bit address: bits 63..47
// all equal (SDM Vol. 3A §3.3.7.1, §4.5). Accesses to other addresses fault
// with #GP before any page walk, so they can never be mapped.
func canonical(va uintptr) bool {
	top := va >> 47
	return top == 0 || top == 1<<17-1
}

// User address-space layout.
const (
	// UserEnd is one past the last user address: Linux TASK_SIZE on
	// x86-64 with 4-level paging, 2^47 minus one guard page
	// (arch/x86/include/asm/page_64_types.h, TASK_SIZE_MAX), so that no
	// instruction can run off the end of user space into the
	// non-canonical hole.
	UserEnd uintptr = 0x7fff_ffff_f000
	// MmapBase is where the top-down search for free ranges starts: 1 TiB
	// below UserEnd, leaving the top for the initial stack.
	MmapBase uintptr = 0x7f00_0000_0000
	// ExecBase and ExecEnd bound the exec region: the memory of each child process execve
	// loaded, in the child's own page table (process.go, kernel/proc.go). The program's space
	// reserves it; the runner links the program's executable for children (/bin/NAME) at
	// ExecBase+4 KiB. Whole top-level slots (512 GiB each).
	ExecBase uintptr = 0x2000_0000_0000
	ExecEnd  uintptr = 0x3000_0000_0000
)

// Kernel half.
const (
	// DirectMapBase is where all physical RAM appears in the kernel half:
	// virtual DirectMapBase+pa maps physical pa (supervisor, RW, NX,
	// global). It is the start of the upper canonical half (PML4 slot 256).
	DirectMapBase uintptr = 0xffff_8000_0000_0000
	// KernelStackBase is where the kernel stacks start (PML4 slot 384).
	KernelStackBase uintptr = 0xffff_c000_0000_0000
)

// lowDirectMap is always direct mapped even if the RAM list does not cover
// it: on a multiboot PC the low 16 MiB hold the multiboot information, the
// command line and (right after the image) modules, which the kernel removed
// from the usable RAM list but still needs to read.
const lowDirectMap = 16 << 20
