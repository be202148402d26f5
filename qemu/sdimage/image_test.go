// Tests of Write: an image read back byte by byte, and the errors.
// SPDX-License-Identifier: BSD-3-Clause

package sdimage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diskfs/go-diskfs/backend/file"
	"github.com/diskfs/go-diskfs/filesystem/fat32"
)

// randomData is n bytes that no FAT structure looks like.
func randomData(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// readBack opens the image's FAT32 volume with go-diskfs's reader, independently of Write's
// own check, and returns every file's contents.
func readBack(t *testing.T, img string, files []File) map[string][]byte {
	t.Helper()
	f, err := os.Open(img)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	fs, err := fat32.Read(file.New(f, true), fi.Size()-partStart, partStart, sectorSize)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(fs.Label()); got != Label {
		t.Errorf("label %q, want %q", got, Label)
	}
	got := map[string][]byte{}
	for _, fl := range files {
		b, err := readFile(fs, fl.Name, len(fl.Data))
		if err != nil {
			t.Fatalf("%s: %v", fl.Name, err)
		}
		got[fl.Name] = b
	}
	return got
}

func TestWrite(t *testing.T) {
	files := []File{
		{"config.txt", []byte("arm_64bit=1\n")},
		{"bootcode.bin", randomData(1, 52460)},
		{"start.elf", randomData(2, 2973536)},
		{"fixup.dat", randomData(3, 7262)},
		{KernelName, randomData(4, 1<<20+123)},
		{"overlays/disable-bt.dtbo", randomData(5, 1234)},
		{"overlays/README", []byte("overlays\n")},
		{"a-rather-long-file-name-that-needs-several-lfn-entries.bin", randomData(6, 512)},
		{"one-byte", []byte{7}},
	}
	const sizeMiB = 64
	img := filepath.Join(t.TempDir(), "sd.img")
	if err := Write(img, files, sizeMiB); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != sizeMiB<<20 {
		t.Fatalf("image is %d bytes, want %d", len(b), sizeMiB<<20)
	}

	// The MBR, read by hand: signature, the one partition entry at 0x1BE, the other three empty.
	if b[510] != 0x55 || b[511] != 0xAA {
		t.Errorf("MBR signature % x, want 55 aa", b[510:512])
	}
	entry := b[0x1BE:0x1CE]
	if entry[0] != 0x80 {
		t.Errorf("boot flag %#x, want 0x80", entry[0])
	}
	if entry[4] != 0x0C {
		t.Errorf("partition type %#x at 0x1C2, want 0x0C (FAT32 LBA)", entry[4])
	}
	if got := binary.LittleEndian.Uint32(entry[8:]); got != 8192 {
		t.Errorf("start LBA %d at 0x1C6, want 8192", got)
	}
	if got, want := binary.LittleEndian.Uint32(entry[12:]), uint32(sizeMiB<<20/512-8192); got != want {
		t.Errorf("%d sectors at 0x1CA, want %d (to the end of the image)", got, want)
	}
	if h, s, c := chs(8192); entry[1] != h || entry[2] != s || entry[3] != c {
		t.Errorf("start CHS % x, want % x", entry[1:4], []byte{h, s, c})
	}
	if !bytes.Equal(b[0x1CE:0x1FE], make([]byte, 48)) {
		t.Errorf("partition entries 2-4 are not empty: % x", b[0x1CE:0x1FE])
	}

	// The FAT32 boot sector at 4 MiB, and its backup in sector 6 of the partition.
	bs := b[partStart : partStart+512]
	if got := string(bs[82:90]); got != "FAT32   " {
		t.Errorf("file system type %q at offset 82, want \"FAT32   \"", got)
	}
	if got := string(bs[71:82]); got != "GMPOSBOOT  " {
		t.Errorf("volume label %q in the boot sector, want \"GMPOSBOOT  \"", got)
	}
	if bs[510] != 0x55 || bs[511] != 0xAA {
		t.Errorf("boot sector signature % x, want 55 aa", bs[510:512])
	}
	if got := binary.LittleEndian.Uint32(bs[28:]); got != 8192 {
		t.Errorf("hidden sectors %d, want 8192 (the partition's start)", got)
	}
	if backup := b[partStart+6*512 : partStart+7*512]; !bytes.Equal(backup, bs) {
		t.Errorf("the backup boot sector differs from the boot sector")
	}
	g := geometry(sizeMiB<<20 - partStart)
	if g.clusters < minClusters {
		t.Errorf("%d clusters: too few for FAT32", g.clusters)
	}

	// Every file, byte for byte.
	got := readBack(t, img, files)
	for _, fl := range files {
		if !bytes.Equal(got[fl.Name], fl.Data) {
			t.Errorf("%s: read back %d bytes that differ from the %d written", fl.Name, len(got[fl.Name]), len(fl.Data))
		}
	}

	// Nothing left next to the image: the temporary file was renamed.
	if ents, _ := os.ReadDir(filepath.Dir(img)); len(ents) != 1 {
		t.Errorf("directory holds %d entries, want only sd.img", len(ents))
	}
	if fi, err := os.Stat(img); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("sd.img: %v, %v; want mode 0644", fi.Mode(), err)
	}
}

// TestWriteFull fills a volume to the last cluster need counts, with a root directory that
// spans several clusters: Write succeeds at that size and refuses one byte more, so need
// agrees with what go-diskfs allocates.
func TestWriteFull(t *testing.T) {
	const sizeMiB = 40
	g := geometry(sizeMiB<<20 - partStart)
	cb := g.clusterBytes()
	var files []File
	for i := range 40 {
		// Distinct in their first six characters: go-diskfs's 8.3 aliases are then distinct.
		files = append(files, File{fmt.Sprintf("f%02d-with-a-long-name.dat", i), randomData(uint64(i), 700)})
	}
	files = append(files, File{"overlays/x.dtbo", []byte("x")}, File{"filler", []byte{0}})
	free := int64(g.usable) - need(files, cb) + 1 // the filler's one cluster is counted
	files[len(files)-1].Data = randomData(99, int(free*cb))
	if need(files, cb) != int64(g.usable) {
		t.Fatalf("need = %d, want the %d usable clusters", need(files, cb), g.usable)
	}
	img := filepath.Join(t.TempDir(), "full.img")
	if err := Write(img, files, sizeMiB); err != nil {
		t.Fatalf("a full volume: %v", err)
	}
	got := readBack(t, img, files)
	for _, fl := range files {
		if !bytes.Equal(got[fl.Name], fl.Data) {
			t.Errorf("%s: read back differs", fl.Name)
		}
	}
	if MinSizeMiB(files) != sizeMiB {
		t.Errorf("MinSizeMiB = %d, want %d", MinSizeMiB(files), sizeMiB)
	}

	files[len(files)-1].Data = append(files[len(files)-1].Data, 0)
	err := Write(img, files, sizeMiB)
	if want := fmt.Sprintf("needs at least %d MiB", sizeMiB+1); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("one byte more: %v, want %q", err, want)
	}
}

func TestMinSizeMiB(t *testing.T) {
	// No files: the smallest volume with 65525 clusters of 512 bytes, plus 4 MiB.
	if got := MinSizeMiB(nil); got != 37 {
		t.Errorf("MinSizeMiB(nil) = %d, want 37", got)
	}
	if g := geometry(36<<20 - partStart); g.clusters >= minClusters {
		t.Errorf("36 MiB: %d clusters, expected fewer than %d", g.clusters, minClusters)
	}
	// The sizes whose FAT go-diskfs makes too short (fatCovers) are all in 16392-16456 MiB.
	var bad []int
	for s := range MaxSizeMiB + 1 {
		if badFATSize(s) {
			bad = append(bad, s)
		}
	}
	if len(bad) != 17 || bad[0] != 16392 || bad[16] != 16456 {
		t.Errorf("sizes with a short FAT: %v, want 17 from 16392 to 16456", bad)
	}
	// 300 MiB of data needs the 4 KiB clusters of a volume over 260 MiB.
	big := []File{{"big", make([]byte, 300<<20)}}
	if got := MinSizeMiB(big); got < 305 || got > 306 {
		t.Errorf("MinSizeMiB(300 MiB) = %d, want 305 or 306", got)
	}
}

func TestWriteErrors(t *testing.T) {
	x := []byte("x")
	ok := File{"config.txt", x}
	for _, tc := range []struct {
		files   []File
		sizeMiB int
		want    string
	}{
		{nil, 64, "no files"},
		{[]File{{"", x}}, 64, "empty name"},
		{[]File{ok, {"ssh", nil}}, 64, `"ssh" is empty`},
		{[]File{{"a/b/c", x}}, 64, "one directory level"},
		{[]File{{"/config.txt", x}}, 64, "empty name"},
		{[]File{{"overlays/", x}}, 64, "empty name"},
		{[]File{{"con:fig", x}}, 64, "cannot hold ':'"},
		{[]File{{"a*b", x}}, 64, "cannot hold '*'"},
		{[]File{{`a\b`, x}}, 64, `cannot hold '\\'`},
		{[]File{{"naïve.txt", x}}, 64, "printable ASCII"},
		{[]File{{"tab\there", x}}, 64, "printable ASCII"},
		{[]File{{".hidden", x}}, 64, "starts with a dot"},
		{[]File{{"..", x}}, 64, "starts with a dot"},
		{[]File{{"name.", x}}, 64, "ends with a dot"},
		{[]File{{"name ", x}}, 64, "ends with a dot or a space"},
		{[]File{{strings.Repeat("x", 256), x}}, 64, "more than FAT's 255"},
		{[]File{ok, {"CONFIG.TXT", x}}, 64, "ignores case"},
		{[]File{{"overlays", x}, {"overlays/x.dtbo", x}}, 64, "makes it a directory"},
		{[]File{{"Overlays/x.dtbo", x}, {"OVERLAYS", x}}, 64, "makes it a directory"},
		{[]File{ok}, 36, "needs at least 37 MiB"},
		{[]File{ok}, 0, "needs at least 37 MiB"},
		{[]File{ok}, -1, "needs at least 37 MiB"},
		{[]File{ok, {"big", make([]byte, 40<<20)}}, 40, "needs at least 45 MiB"},
		{[]File{ok}, MaxSizeMiB + 1, "largest FAT32 SD card"},
		{[]File{ok}, 16400, "fewer entries than the volume has clusters at this size; take another, e.g. 16401 MiB"},
		// go-diskfs would give both the 8.3 name BCM271~1.DTB.
		{[]File{{"bcm2710-rpi-3-b.dtb", x}, {"bcm2710-rpi-3-b-plus.dtb", x}}, 64, "8.3 name BCM271~1.DTB"},
		{[]File{{"overlays/disable-bt.dtbo", x}, {"overlays/disable-wifi.dtbo", x}}, 64, "8.3 name DISABL~1.DTB"},
	} {
		dir := t.TempDir()
		img := filepath.Join(dir, "sd.img")
		err := Write(img, tc.files, tc.sizeMiB)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Write(%.40q, %d) = %v, want an error with %q", fmt.Sprint(tc.files), tc.sizeMiB, err, tc.want)
		}
		// A failed Write leaves nothing behind: no image, no temporary file.
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("Write(%.40q) left %d files behind", fmt.Sprint(tc.files), len(ents))
		}
	}
}

func TestCHS(t *testing.T) {
	for _, tc := range []struct {
		lba  uint32
		want [3]byte
	}{
		{0, [3]byte{0, 1, 0}},
		{62, [3]byte{0, 63, 0}},
		{63, [3]byte{1, 1, 0}},
		{8192, [3]byte{130, 3, 0}},                  // 8192 = 130*63 + 2
		{255 * 63 * 300, [3]byte{0, 0x41, 44}},      // cylinder 300 = 0x12c: bits 8-9 in the sector byte
		{255 * 63 * 1024, [3]byte{254, 0xff, 0xff}}, // past CHS: 1023/254/63
	} {
		h, s, c := chs(tc.lba)
		if got := [3]byte{h, s, c}; got != tc.want {
			t.Errorf("chs(%d) = % x, want % x", tc.lba, got, tc.want)
		}
	}
}

func TestReadRoot(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sd.img")
	files := []File{{Name: "kernel8.img", Data: bytes.Repeat([]byte{0xa5}, 100_000)}, {Name: "config.txt", Data: []byte("arm_64bit=1\n")}}
	if err := Write(out, files, 40); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRoot(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !bytes.Equal(got["kernel8.img"], files[0].Data) || string(got["config.txt"]) != "arm_64bit=1\n" {
		t.Errorf("read back %d files", len(got))
	}
	if err := os.WriteFile(out, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRoot(out); err == nil {
		t.Error("a blank image read")
	}
}
