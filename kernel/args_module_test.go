// Tests of the argument module.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"encoding/binary"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

func module(argv, envp []string) []byte {
	m := []byte(argsMagic)
	m = binary.LittleEndian.AppendUint32(m, uint32(len(argv)))
	m = binary.LittleEndian.AppendUint32(m, uint32(len(envp)))
	for _, s := range append(append([]string{}, argv...), envp...) {
		m = append(append(m, s...), 0)
	}
	return m
}

func TestArgsModule(t *testing.T) {
	good := module([]string{"prog", "", "two words", "\xff"}, []string{"A=1", ""})
	if argc, envc, strs, ok := argsModule(good); !ok || argc != 4 || envc != 2 || len(strs) != len(good)-argsHeader {
		t.Fatalf("good module: %d %d %d %v", argc, envc, len(strs), ok)
	}
	bad := map[string][]byte{
		"short":        good[:10],
		"magic":        append([]byte("GMPOSARX"), good[8:]...),
		"argc 0":       module(nil, []string{"A=1"}),
		"more strings": append(good, 'x', 0),
		"no final NUL": good[:len(good)-1],
		"argc too big": append(append(append([]byte{}, good[:8]...), 0xff, 0xff, 0xff, 0x7f), good[12:]...),
	}
	for name, m := range bad {
		if _, _, _, ok := argsModule(m); ok {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestModuleImage writes the process image of a module into a buffer and reads it back as the
// Go runtime does: argc, argv, NULL, envp, NULL, auxv with AT_EXECFN = argv[0].
func TestModuleImage(t *testing.T) {
	for _, envp := range [][]string{{"HOME=/", "E="}, nil} {
		moduleImage(t, []string{"prog", "", "x y", strings.Repeat("z", 1000)}, envp)
	}
	moduleImage(t, []string{"prog"}, nil)
}

func moduleImage(t *testing.T, argv, envp []string) {
	m := module(argv, envp)
	argc, envc, strs, _ := argsModule(m)
	saved := bootArgs
	defer func() { bootArgs = saved }()
	bootArgs.argc, bootArgs.envc = argc, envc
	bootArgs.strs, bootArgs.n = uintptr(unsafe.Pointer(&strs[0])), uintptr(len(strs))
	stack := make([]byte, argsImageSize()+4096)
	top := (uintptr(unsafe.Pointer(&stack[0])) + uintptr(len(stack))) &^ 15
	var random [16]byte
	sp := writeModuleImage(top, &random)
	if sp%16 != 0 || sp < uintptr(unsafe.Pointer(&stack[0])) {
		t.Fatalf("sp %#x: misaligned or below the buffer", sp)
	}
	word := func(i int) uintptr { return *(*uintptr)(ptr(sp + uintptr(8*i))) }
	str := func(p uintptr) string {
		var b []byte
		for ; *(*byte)(ptr(p)) != 0; p++ {
			b = append(b, *(*byte)(ptr(p)))
		}
		return string(b)
	}
	if int(word(0)) != len(argv) {
		t.Fatalf("argc %d", word(0))
	}
	var gotArgv, gotEnvp []string
	i := 1
	for ; word(i) != 0; i++ {
		gotArgv = append(gotArgv, str(word(i)))
	}
	for i++; word(i) != 0; i++ {
		gotEnvp = append(gotEnvp, str(word(i)))
	}
	if !reflect.DeepEqual(gotArgv, argv) || len(gotEnvp) != len(envp) || len(envp) > 0 && !reflect.DeepEqual(gotEnvp, envp) {
		t.Fatalf("argv %q envp %q", gotArgv, gotEnvp)
	}
	execfn := uintptr(0)
	for i++; word(i) != atNull; i += 2 {
		if word(i) == atExecfn {
			execfn = word(i + 1)
		}
	}
	if execfn == 0 || str(execfn) != "prog" {
		t.Errorf("AT_EXECFN %#x", execfn)
	}
}

func FuzzArgsModule(f *testing.F) {
	f.Add(module([]string{"a"}, nil))
	f.Add(module([]string{"prog", ""}, []string{"A=1"}))
	f.Fuzz(func(t *testing.T, m []byte) {
		argc, envc, strs, ok := argsModule(m)
		if !ok {
			return
		}
		// Whatever it accepts, writeModuleImage can walk: argc+envc NUL-terminated strings.
		n := 0
		for _, c := range strs {
			if c == 0 {
				n++
			}
		}
		if argc < 1 || n != argc+envc || strs[len(strs)-1] != 0 {
			t.Fatalf("accepted argc %d envc %d with %d strings", argc, envc, n)
		}
	})
}
