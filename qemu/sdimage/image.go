// Write: the SD card image from a list of files.
// SPDX-License-Identifier: BSD-3-Clause

package sdimage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/diskfs/go-diskfs/backend"
	"github.com/diskfs/go-diskfs/backend/file"
	"github.com/diskfs/go-diskfs/filesystem/fat32"
	"github.com/diskfs/go-diskfs/partition/mbr"
)

// File is one file of the boot partition. Name is its path from the partition's root, with at
// most one directory level ("config.txt", "overlays/disable-bt.dtbo").
type File struct {
	Name string
	Data []byte
}

// maxFileSize is the largest file FAT32 holds: its directory entry has a 32-bit size.
const maxFileSize = 1<<32 - 1

// Write writes an SD card image of sizeMiB MiB holding files to out (see the package comment
// for the layout). It refuses names FAT cannot hold, duplicates (FAT ignores case), empty
// files and a size too small for the files, saying how large it must be. out is replaced only
// once the image is complete and has been read back.
func Write(out string, files []File, sizeMiB int) (err error) {
	dirs, err := checkFiles(files)
	if err != nil {
		return err
	}
	if sizeMiB > MaxSizeMiB {
		return fmt.Errorf("sdimage: %d MiB: larger than %d MiB, the largest FAT32 SD card", sizeMiB, MaxSizeMiB)
	}
	if badFATSize(sizeMiB) {
		next := sizeMiB
		for badFATSize(next) {
			next++
		}
		return fmt.Errorf("sdimage: %d MiB: go-diskfs would make a FAT with fewer entries than the volume has clusters at this size; take another, e.g. %d MiB", sizeMiB, next)
	}
	if !fits(files, sizeMiB) {
		least := MinSizeMiB(files)
		if least == 0 {
			return fmt.Errorf("sdimage: the files do not fit even a %d MiB image", MaxSizeMiB)
		}
		return fmt.Errorf("sdimage: %d MiB is too small: the image needs at least %d MiB (4 MiB before the partition, a FAT32 volume of at least %d clusters, and the files)", sizeMiB, least, minClusters)
	}

	f, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*")
	if err != nil {
		return fmt.Errorf("sdimage: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	size := int64(sizeMiB) << 20
	// Truncate makes the file its full size with zeros (sparse on most file systems): the
	// sectors between the MBR and the partition, and the free clusters, stay zero.
	if err := f.Truncate(size); err != nil {
		return fmt.Errorf("sdimage: %w", err)
	}
	b := file.New(f, false)
	if err := writeFS(b, size, files, dirs); err != nil {
		return err
	}
	// go-diskfs's allocator does not stop at the end of the data area (see the package
	// comment): a volume need miscounted would grow the file past the partition's end.
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("sdimage: %w", err)
	}
	if fi.Size() != size {
		return fmt.Errorf("sdimage: go-diskfs wrote past the end of the volume (image of %d bytes, want %d): layout.go's need undercounts", fi.Size(), size)
	}
	if err := verify(b, size, files); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("sdimage: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("sdimage: %w", err)
	}
	if err := os.Rename(f.Name(), out); err != nil {
		return fmt.Errorf("sdimage: %w", err)
	}
	return nil
}

// writeFS writes the partition table, the file system and the files to an image of size
// bytes. dirs are the files' directories, each once, as checkFiles found them.
func writeFS(b backend.Storage, size int64, files []File, dirs []string) error {
	w, err := b.Writable()
	if err != nil {
		return fmt.Errorf("sdimage: %w", err)
	}
	partSectors := uint32(size/sectorSize) - partStartLBA
	p := &mbr.Partition{
		Bootable: true, // active (0x80): the partition to boot; the Pi takes the first either way
		Type:     mbr.Fat32LBA,
		Start:    partStartLBA,
		Size:     partSectors,
	}
	p.StartHead, p.StartSector, p.StartCylinder = chs(p.Start)
	p.EndHead, p.EndSector, p.EndCylinder = chs(p.Start + p.Size - 1)
	table := &mbr.Table{LogicalSectorSize: sectorSize, PhysicalSectorSize: sectorSize, Partitions: []*mbr.Partition{p}}
	if err := table.Write(w, size); err != nil {
		return fmt.Errorf("sdimage: %w", err)
	}

	partBytes := int64(partSectors) * sectorSize
	fs, err := fat32.Create(b, partBytes, partStart, sectorSize, Label)
	if err != nil {
		return fmt.Errorf("sdimage: %w", err)
	}
	if err := checkGeometry(b, partBytes); err != nil {
		return err
	}
	for _, d := range dirs {
		if err := fs.Mkdir("/" + d); err != nil {
			return fmt.Errorf("sdimage: %s: %w", d, err)
		}
	}
	for _, fl := range files {
		h, err := fs.OpenFile("/"+fl.Name, os.O_CREATE|os.O_RDWR)
		if err != nil {
			return fmt.Errorf("sdimage: %s: %w", fl.Name, err)
		}
		if _, err := h.Write(fl.Data); err != nil {
			return fmt.Errorf("sdimage: %s: %w", fl.Name, err)
		}
		if err := h.Close(); err != nil {
			return fmt.Errorf("sdimage: %s: %w", fl.Name, err)
		}
	}
	if err := checkShortNames(fs, dirs); err != nil {
		return err
	}

	// BPB_HiddSec (boot sector offset 28): the sectors before the volume, i.e. the partition's
	// first LBA. go-diskfs writes 0; put it right in the boot sector and its backup (sector 6).
	var hidden [4]byte
	binary.LittleEndian.PutUint32(hidden[:], partStartLBA)
	for _, sector := range []int64{0, 6} {
		if _, err := w.WriteAt(hidden[:], partStart+sector*sectorSize+28); err != nil {
			return fmt.Errorf("sdimage: %w", err)
		}
	}
	return nil
}

// checkShortNames refuses two entries of one directory with the same 8.3 alias, which
// go-diskfs v1.7.0 writes when two long names share their first six characters and their
// extension (see the package comment).
func checkShortNames(fs *fat32.FileSystem, dirs []string) error {
	for _, d := range append([]string{""}, dirs...) {
		infos, err := fs.ReadDir("/" + d)
		if err != nil {
			return fmt.Errorf("sdimage: reading back /%s: %w", d, err)
		}
		seen := map[string]string{}
		for _, fi := range infos {
			info, ok := fi.(fat32.FileInfo)
			if !ok {
				return fmt.Errorf("sdimage: reading back /%s: unexpected file info %T", d, fi)
			}
			short := strings.ToUpper(info.ShortName())
			if short == "." || short == ".." {
				continue
			}
			if other, dup := seen[short]; dup {
				return fmt.Errorf("sdimage: %s and %s would both have the 8.3 name %s (go-diskfs does not number them apart): rename one", filepath.Join(d, other), filepath.Join(d, fi.Name()), short)
			}
			seen[short] = fi.Name()
		}
	}
	return nil
}

// verify reads every file back through go-diskfs's reader, from the partition table on, and
// compares it with what was written.
func verify(b backend.Storage, size int64, files []File) error {
	table, err := mbr.Read(b, sectorSize, sectorSize)
	if err != nil || len(table.Partitions) == 0 {
		return fmt.Errorf("sdimage: reading back the partition table: %v", err)
	}
	p := table.Partitions[0]
	if p.Type != mbr.Fat32LBA || !p.Bootable || p.GetStart() != partStart || p.GetStart()+p.GetSize() != size {
		return fmt.Errorf("sdimage: reading back the partition table: got %+v", *p)
	}
	fs, err := fat32.Read(b, p.GetSize(), p.GetStart(), sectorSize)
	if err != nil {
		return fmt.Errorf("sdimage: reading back the file system: %w", err)
	}
	for _, fl := range files {
		got, err := readFile(fs, fl.Name, len(fl.Data))
		if err != nil {
			return fmt.Errorf("sdimage: reading back %s: %w", fl.Name, err)
		}
		if !bytes.Equal(got, fl.Data) {
			return fmt.Errorf("sdimage: reading back %s: %d bytes differ from the %d written", fl.Name, len(got), len(fl.Data))
		}
	}
	return nil
}

// readFile reads the file name, expected to be n bytes long, from fs in one Read from its
// start: go-diskfs v1.7.0's File.Read returns bytes past the end of the file when a read
// starts in the middle of a cluster, as io.ReadAll's do. The buffer has room for one byte
// more than n, so a file that is longer on the volume shows up as such.
func readFile(fs *fat32.FileSystem, name string, n int) ([]byte, error) {
	h, err := fs.OpenFile("/"+name, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	b := make([]byte, n+1)
	got, err := h.Read(b)
	if err != nil && err != io.EOF {
		return nil, err
	}
	return b[:got], nil
}
