// Kernel command line encoding (docs/contract.md, "Kernel command line").
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxCmdline bounds the encoded command line; the kernel copies it into a
// fixed-size buffer before the Go runtime (and its heap) exists.
const MaxCmdline = 4096

// plain reports whether c may appear unescaped in a command-line token:
// [A-Za-z0-9._/=:,+-]. Everything else, including space and '%', is %XX.
func plain(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("._/=:,+-", c) >= 0
}

// Escape %-encodes s as one command-line token.
func Escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; plain(c) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// Unescape decodes one token written by Escape. The kernel has its own
// (allocation-free) decoder; this one is the reference the tests use.
func Unescape(tok string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(tok) {
			return "", fmt.Errorf("truncated %%-escape in %q", tok)
		}
		v, err := strconv.ParseUint(tok[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("bad %%-escape %q in %q", tok[i:i+3], tok)
		}
		b.WriteByte(byte(v))
		i += 2
	}
	return b.String(), nil
}

// validKey reports whether k is a kernel option name: [A-Za-z0-9_.]+.
func validKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c == '.' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// Cmdline builds the -append string: kernel options (KEY=VALUE, an
// argv0=NAME option first unless opts has one), then "--" and the
// program's arguments, each token %-escaped.
//
// Empty arguments are refused: the line is split on spaces, and the
// contract has no token for "". NUL bytes are refused as Linux does.
func Cmdline(argv0 string, opts, args []string) (string, error) {
	var toks []string
	hasArgv0 := false
	for _, o := range opts {
		k, _, ok := strings.Cut(o, "=")
		if !ok || !validKey(k) {
			return "", fmt.Errorf("kernel option %q: want KEY=VALUE with KEY in [A-Za-z0-9_.]", o)
		}
		if strings.IndexByte(o, 0) >= 0 {
			return "", fmt.Errorf("kernel option %q contains a NUL byte", o)
		}
		hasArgv0 = hasArgv0 || k == "argv0"
	}
	if !hasArgv0 {
		if argv0 == "" {
			argv0 = "gmpos"
		}
		toks = append(toks, "argv0="+Escape(argv0))
	}
	for _, o := range opts {
		toks = append(toks, Escape(o))
	}
	toks = append(toks, "--")
	for i, a := range args {
		if a == "" {
			return "", fmt.Errorf("argument %d is empty: the kernel command line cannot carry empty arguments", i+1)
		}
		if strings.IndexByte(a, 0) >= 0 {
			return "", fmt.Errorf("argument %d contains a NUL byte", i+1)
		}
		toks = append(toks, Escape(a))
	}
	line := strings.Join(toks, " ")
	if len(line) > MaxCmdline {
		return "", fmt.Errorf("kernel command line is %d bytes after escaping, limit %d", len(line), MaxCmdline)
	}
	return line, nil
}

// ParseCmdline is the inverse of Cmdline, for tests and for documentation
// of what the kernel does: options before "--", argv[1:] after it. Like
// the kernel, it expects the line QEMU passes in the Multiboot
// information, whose first token is the image path QEMU prepends.
func ParseCmdline(mbCmdline string) (opts, args []string, err error) {
	toks := strings.Fields(mbCmdline)
	if len(toks) == 0 {
		return nil, nil, fmt.Errorf("empty Multiboot command line (QEMU always prepends the image path)")
	}
	toks = toks[1:] // the image path
	inArgs := false
	for _, t := range toks {
		if t == "--" && !inArgs {
			inArgs = true
			continue
		}
		v, err := Unescape(t)
		if err != nil {
			return nil, nil, err
		}
		if inArgs {
			args = append(args, v)
		} else {
			opts = append(opts, v)
		}
	}
	return opts, args, nil
}
