// The argument module: the program's argv and envp, handed to the kernel as a Multiboot module
// (QEMU -initrd) instead of on the command line (docs/contract.md, "Argument module";
// kernel/args_module.go reads it).
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Linux's limits on what execve passes (include/uapi/linux/binfmts.h, fs/exec.c): a string of
// at most MAX_ARG_STRLEN bytes with its NUL, and the strings and their pointers within ARG_MAX
// (a quarter of the default 8 MiB stack).
const (
	MaxArgStrlen = 32 * 4096
	MaxArgTotal  = 2 << 20
)

// ArgsModule encodes argv (argv[0] first) and envp as the kernel reads them:
// "GMPOSARG", argc and envc as little-endian uint32, then the NUL-terminated strings. It
// refuses what execve would (E2BIG, a NUL inside a string) with the reason.
func ArgsModule(argv, envp []string) ([]byte, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("no argv[0]")
	}
	total := 8 * (len(argv) + len(envp) + 2)
	m := []byte("GMPOSARG")
	m = binary.LittleEndian.AppendUint32(m, uint32(len(argv)))
	m = binary.LittleEndian.AppendUint32(m, uint32(len(envp)))
	for i, s := range append(append([]string{}, argv...), envp...) {
		what := fmt.Sprintf("argument %d", i)
		if i >= len(argv) {
			what = fmt.Sprintf("environment variable %q", strings.SplitN(s, "=", 2)[0])
		}
		if strings.IndexByte(s, 0) >= 0 {
			return nil, fmt.Errorf("%s contains a NUL byte", what)
		}
		if len(s)+1 > MaxArgStrlen {
			return nil, fmt.Errorf("%s is %d bytes: Linux passes at most %d (MAX_ARG_STRLEN)", what, len(s), MaxArgStrlen-1)
		}
		total += len(s) + 1
		m = append(append(m, s...), 0)
	}
	if total > MaxArgTotal {
		return nil, fmt.Errorf("the arguments and environment take %d bytes: Linux passes at most %d (ARG_MAX; E2BIG)", total, MaxArgTotal)
	}
	return m, nil
}
