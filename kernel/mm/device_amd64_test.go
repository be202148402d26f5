package mm

import "testing"

// x86: device pages are PCD=1 PWT=1 (PAT entry 3 = UC, SDM Vol. 3A
// §11.12.3), with no PAT bit, NX, supervisor (U/S=0), global.
func TestMapDeviceEncodingAmd64(t *testing.T) {
	pt := boot(t, testRAM)
	if err := MapDevice(0xfec00000, 0x20); err != OK {
		t.Fatal(err)
	}
	e := rawEntry(pt, 0xfec00000, level4K)
	want := PTE(0xfec00000) | PTEPresent | PTEWrite | PTECacheDisable | PTEWriteThrough | PTEGlobal | PTENoExec
	if e != want {
		t.Fatalf("I/O APIC entry %#x, want %#x", e, want)
	}
}
