// Tests of module lists, .modinfo and the load order.
// SPDX-License-Identifier: BSD-3-Clause

package linuxpeer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// virtio_net's .modinfo from Debian's 6.1.0-56-cloud-amd64, shortened.
const virtioNetModinfo = "license=GPL\x00description=Virtio network driver\x00parmtype=napi_tx:bool\x00" +
	"alias=virtio:d00000001v*\x00depends=virtio_ring,virtio,net_failover\x00retpoline=Y\x00intree=Y\x00" +
	"name=virtio_net\x00vermagic=6.1.0-56-cloud-amd64 SMP preempt mod_unload modversions \x00\x00\x00"

func TestParseModinfo(t *testing.T) {
	mi := ParseModinfo([]byte(virtioNetModinfo))
	want := Modinfo{Name: "virtio_net", Depends: []string{"virtio_ring", "virtio", "net_failover"},
		Vermagic: "6.1.0-56-cloud-amd64 SMP preempt mod_unload modversions "}
	if !reflect.DeepEqual(mi, want) {
		t.Errorf("got %+v\nwant %+v", mi, want)
	}
	// A module with no dependencies says "depends=" with nothing after it; names with '-'
	// are normalized.
	mi = ParseModinfo([]byte("depends=\x00name=virtio-rng\x00"))
	if mi.Depends != nil || mi.Name != "virtio_rng" {
		t.Errorf("got %+v", mi)
	}
	mi = ParseModinfo([]byte("depends=a-b,,c\x00junk\x00"))
	if !reflect.DeepEqual(mi.Depends, []string{"a_b", "c"}) {
		t.Errorf("depends %q", mi.Depends)
	}
}

func TestParseModuleList(t *testing.T) {
	m, err := ParseModuleList([]byte("kernel/drivers/virtio/virtio.ko\n\nkernel/drivers/char/hw_random/virtio-rng.ko\n" +
		"kernel/fs/x.ko.xz\nkernel/drivers/virtio/virtio.ko\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"virtio": "kernel/drivers/virtio/virtio.ko",
		"virtio_rng": "kernel/drivers/char/hw_random/virtio-rng.ko", "x": "kernel/fs/x.ko.xz"}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got %v", m)
	}
	for _, bad := range []string{"kernel/README\n", ".ko\n", "kernel/x.o\n"} {
		if _, err := ParseModuleList([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// debian61 is the dependency graph of the NIC's modules in Debian's 6.1 cloud kernel.
var debian61 = map[string][]string{
	"virtio_pci":            {"virtio_ring", "virtio_pci_modern_dev", "virtio_pci_legacy_dev", "virtio"},
	"virtio_net":            {"virtio_ring", "virtio", "net_failover"},
	"net_failover":          {"failover"},
	"failover":              nil,
	"virtio":                {"virtio_ring"},
	"virtio_ring":           nil,
	"virtio_pci_modern_dev": nil,
	"virtio_pci_legacy_dev": nil,
}

func lookupIn(g map[string][]string, asked map[string]int) func(string) (Module, error) {
	return func(name string) (Module, error) {
		asked[name]++
		deps, ok := g[name]
		if !ok {
			return Module{}, errors.New("no such module")
		}
		return Module{Name: name, Path: "kernel/" + name + ".ko", Depends: deps}, nil
	}
}

func TestLoadOrder(t *testing.T) {
	asked := map[string]int{}
	mods, err := LoadOrder([]string{"virtio-pci", "virtio_net"}, lookupIn(debian61, asked))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	pos := map[string]int{}
	for i, m := range mods {
		names = append(names, m.Name)
		pos[m.Name] = i
	}
	want := []string{"virtio_ring", "virtio_pci_modern_dev", "virtio_pci_legacy_dev", "virtio", "virtio_pci",
		"failover", "net_failover", "virtio_net"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("order %v\nwant  %v", names, want)
	}
	for _, m := range mods {
		for _, d := range m.Depends {
			if pos[d] >= pos[m.Name] {
				t.Errorf("%s comes before its dependency %s", m.Name, d)
			}
		}
	}
	for n, c := range asked {
		if c != 1 {
			t.Errorf("lookup(%s) called %d times", n, c)
		}
	}
}

func TestLoadOrderErrors(t *testing.T) {
	cyc := map[string][]string{"a": {"b"}, "b": {"c"}, "c": {"a"}}
	_, err := LoadOrder([]string{"a"}, lookupIn(cyc, map[string]int{}))
	if err == nil || !strings.Contains(err.Error(), "cycle: a → b → c → a") {
		t.Errorf("cycle: %v", err)
	}
	missing := map[string][]string{"a": {"gone"}}
	_, err = LoadOrder([]string{"a"}, lookupIn(missing, map[string]int{}))
	if err == nil || !strings.Contains(err.Error(), "a → gone: no such module") {
		t.Errorf("missing: %v", err)
	}
}

// elfWithSections builds a minimal little-endian ELF64 relocatable file with the given sections
// (PROGBITS), enough for debug/elf and ReadModinfo.
func elfWithSections(names []string, data [][]byte) []byte {
	shstr := []byte{0}
	nameOff := make([]int, len(names)+1)
	for i, n := range append(names, ".shstrtab") {
		nameOff[i] = len(shstr)
		shstr = append(append(shstr, n...), 0)
	}
	var body bytes.Buffer
	body.Write(make([]byte, 64)) // the ELF header, filled in below
	offs := make([]int, len(names)+1)
	for i, d := range append(data, shstr) {
		offs[i] = body.Len()
		body.Write(d)
	}
	for body.Len()%8 != 0 {
		body.WriteByte(0)
	}
	shoff := body.Len()
	le := binary.LittleEndian
	sh := func(name, typ uint32, off, size int) {
		var s [64]byte
		le.PutUint32(s[0:], name)
		le.PutUint32(s[4:], typ)
		le.PutUint64(s[24:], uint64(off))
		le.PutUint64(s[32:], uint64(size))
		le.PutUint64(s[48:], 1) // addralign
		body.Write(s[:])
	}
	sh(0, 0, 0, 0) // SHN_UNDEF
	for i := range names {
		sh(uint32(nameOff[i]), 1, offs[i], len(data[i])) // SHT_PROGBITS
	}
	sh(uint32(nameOff[len(names)]), 3, offs[len(names)], len(shstr)) // SHT_STRTAB
	b := body.Bytes()
	copy(b, "\x7fELF\x02\x01\x01")
	le.PutUint16(b[16:], 1)  // ET_REL
	le.PutUint16(b[18:], 62) // EM_X86_64
	le.PutUint32(b[20:], 1)
	le.PutUint64(b[40:], uint64(shoff))
	le.PutUint16(b[52:], 64) // ehsize
	le.PutUint16(b[58:], 64) // shentsize
	le.PutUint16(b[60:], uint16(len(names)+2))
	le.PutUint16(b[62:], uint16(len(names)+1)) // shstrndx
	return b
}

func TestReadModinfo(t *testing.T) {
	f := elfWithSections([]string{".text", ".modinfo"}, [][]byte{{0xc3}, []byte(virtioNetModinfo)})
	mi, err := ReadModinfo(bytes.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	if mi.Name != "virtio_net" || len(mi.Depends) != 3 {
		t.Errorf("got %+v", mi)
	}
	if _, err := ReadModinfo(bytes.NewReader(elfWithSections([]string{".text"}, [][]byte{{0xc3}}))); err == nil {
		t.Error("a file without .modinfo was accepted")
	}
	if _, err := ReadModinfo(bytes.NewReader([]byte("not an ELF file"))); err == nil {
		t.Error("a non-ELF file was accepted")
	}
}

// The decoders of what the kernel package contains must not panic on any input.

func FuzzParseModinfo(f *testing.F) {
	f.Add([]byte(virtioNetModinfo))
	f.Add([]byte("depends=,\x00name=\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		mi := ParseModinfo(b)
		for _, d := range mi.Depends {
			if d == "" || strings.ContainsAny(d, ",\x00-") {
				t.Fatalf("dependency %q", d)
			}
		}
	})
}

func FuzzParseModuleList(f *testing.F) {
	f.Add([]byte("kernel/drivers/virtio/virtio.ko\nkernel/a/b-c.ko.zst\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseModuleList(b)
		if err != nil {
			return
		}
		for name, p := range m {
			if name == "" || strings.Contains(name, "-") || !strings.Contains(p, ".ko") {
				t.Fatalf("%q → %q", name, p)
			}
		}
	})
}

func FuzzReadModinfo(f *testing.F) {
	f.Add(elfWithSections([]string{".text", ".modinfo"}, [][]byte{{0xc3}, []byte(virtioNetModinfo)}))
	f.Add(elfWithSections([]string{".modinfo"}, [][]byte{nil}))
	f.Fuzz(func(t *testing.T, b []byte) {
		ReadModinfo(bytes.NewReader(b))
	})
}
