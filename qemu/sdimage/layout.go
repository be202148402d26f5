// The image's layout: where the partition is, how go-diskfs lays out FAT32 in it, and how many
// clusters the files need.
// SPDX-License-Identifier: BSD-3-Clause

package sdimage

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/diskfs/go-diskfs/backend"
)

const (
	sectorSize = 512
	// partStartLBA is the first sector of the partition: 4 MiB, see the package comment.
	partStartLBA = 8192
	partStart    = partStartLBA * sectorSize
	// MaxSizeMiB is the largest image: 32 GiB, the largest SDHC card (larger cards are SDXC,
	// formatted exFAT) and the size up to which Microsoft's format makes FAT32 volumes.
	MaxSizeMiB = 32 << 10
	// minClusters is the fewest clusters a FAT32 volume may have: with fewer, the FAT type
	// determination of the specification (fatgen103, "FAT Type Determination") calls it FAT16.
	minClusters = 65525
	// Label is the FAT volume label.
	Label = "GMPOSBOOT"
	// direntSize is a FAT directory entry; an LFN entry holds lfnChars characters of a name.
	direntSize = 32
	lfnChars   = 13
	// reservedSectors and fatCount are go-diskfs's choices (fat32.Create).
	reservedSectors = 32
	fatCount        = 2
)

// fatGeometry is a FAT32 volume's layout as go-diskfs v1.7.0's fat32.Create computes it for a
// partition of a given size.
type fatGeometry struct {
	sectorsPerCluster uint32
	sectorsPerFAT     uint32
	// clusters is the number of clusters in the data area; usable is how many of them
	// go-diskfs may allocate: it also stops at the last FAT entry, and the first two entries
	// (0 and 1) name no cluster.
	clusters, usable uint32
}

// geometry is the layout fat32.Create gives a partition of partBytes bytes: its cluster size
// for the volume's size (512 bytes up to 260 MiB, then 4, 16 and 32 KiB), 32 reserved
// sectors, two FATs of one 4-byte entry per cluster, rounded down to whole sectors.
func geometry(partBytes int64) fatGeometry {
	var spc uint32
	switch {
	case partBytes <= 260<<20:
		spc = 1
	case partBytes <= 8<<30:
		spc = 8
	case partBytes <= 16<<30:
		spc = 32
	default: // up to MaxSizeMiB
		spc = 64
	}
	total := uint32(partBytes / sectorSize)
	spf := (total - reservedSectors) / spc / (sectorSize / 4)
	g := fatGeometry{sectorsPerCluster: spc, sectorsPerFAT: spf}
	g.clusters = (total - reservedSectors - fatCount*spf) / spc
	g.usable = min(g.clusters, spf*(sectorSize/4)-2)
	return g
}

// clusterBytes is the size of one cluster.
func (g fatGeometry) clusterBytes() int64 { return int64(g.sectorsPerCluster) * sectorSize }

// fatCovers says whether each FAT has an entry for every cluster (and the two reserved
// entries). go-diskfs rounds the FAT's size down, which with 32 KiB clusters leaves it one
// entry short for 17 image sizes from 16392 to 16456 MiB; fsck.fat rejects such a volume
// ("Filesystem has 524543 clusters but only space for 524542 FAT entries", at 16400 MiB).
func (g fatGeometry) fatCovers() bool {
	return uint64(g.sectorsPerFAT)*(sectorSize/4) >= uint64(g.clusters)+2
}

// need is the number of clusters files take on a volume with clusters of cb bytes, counted as
// go-diskfs allocates them: every file at least one cluster (checkFiles refuses empty ones),
// and every directory, the root included, one cluster more than its entries fill
// (it always pads a directory with a whole cluster of free entries). Each name is counted
// with its long-name entries even when its 8.3 form would do, which may overestimate by a
// cluster.
func need(files []File, cb int64) int64 {
	type dir struct{ entries int64 }
	root := &dir{entries: 1} // the volume label
	subdirs := map[string]*dir{}
	var order []string
	entries := func(name string) int64 { return 1 + int64((len(name)+lfnChars-1)/lfnChars) }
	var n int64
	for _, f := range files {
		d := root
		base := f.Name
		if dirName, b, ok := strings.Cut(f.Name, "/"); ok {
			key := strings.ToUpper(dirName)
			if subdirs[key] == nil {
				subdirs[key] = &dir{entries: 2} // "." and ".."
				order = append(order, key)
				root.entries += entries(dirName)
			}
			d, base = subdirs[key], b
		}
		d.entries += entries(base)
		n += max(1, (int64(len(f.Data))+cb-1)/cb)
	}
	n += root.entries*direntSize/cb + 1
	for _, k := range order {
		n += subdirs[k].entries*direntSize/cb + 1
	}
	return n
}

// fits says whether files fit an image of sizeMiB MiB as a proper FAT32 volume.
func fits(files []File, sizeMiB int) bool {
	part := int64(sizeMiB)<<20 - partStart
	if part <= 0 {
		return false
	}
	g := geometry(part)
	return g.clusters >= minClusters && g.fatCovers() && need(files, g.clusterBytes()) <= int64(g.usable)
}

// badFATSize says whether an image of sizeMiB MiB is one of the sizes for which go-diskfs
// makes a FAT too small (see fatCovers).
func badFATSize(sizeMiB int) bool {
	part := int64(sizeMiB)<<20 - partStart
	if part <= 0 {
		return false
	}
	g := geometry(part)
	return g.clusters >= minClusters && !g.fatCovers()
}

// MinSizeMiB is the smallest image, in MiB, that holds files; 0 if none up to MaxSizeMiB
// does. With no files it is the smallest FAT32 image (37 MiB).
func MinSizeMiB(files []File) int {
	for s := 1; s <= MaxSizeMiB; s++ {
		if fits(files, s) {
			return s
		}
	}
	return 0
}

// checkGeometry compares the boot sector fat32.Create wrote with geometry's prediction, so
// that a go-diskfs whose layout differs (a later version) fails here instead of overfilling
// the volume.
func checkGeometry(r backend.File, partBytes int64) error {
	bs := make([]byte, sectorSize)
	if _, err := r.ReadAt(bs, partStart); err != nil {
		return err
	}
	g := geometry(partBytes)
	spc := uint32(bs[13])
	spf := binary.LittleEndian.Uint32(bs[36:40])
	if spc != g.sectorsPerCluster || spf != g.sectorsPerFAT || binary.LittleEndian.Uint16(bs[14:16]) != reservedSectors || bs[16] != fatCount {
		return fmt.Errorf("sdimage: go-diskfs made a FAT32 volume of %d sectors per cluster and %d per FAT, not the %d and %d layout.go expects: update geometry", spc, spf, g.sectorsPerCluster, g.sectorsPerFAT)
	}
	return nil
}

// chs is an LBA's cylinder-head-sector address in an MBR entry (head, sector with the
// cylinder's two high bits, the cylinder's low byte), in the 255-head, 63-sector geometry
// every partitioning tool assumes. Addresses past CHS's reach get the conventional
// 1023/254/63. The Pi reads only the LBA fields; the CHS ones are filled in for fdisk's sake.
func chs(lba uint32) (head, sector, cylinder byte) {
	const heads, sectors = 255, 63
	c := lba / (heads * sectors)
	h := lba / sectors % heads
	s := lba%sectors + 1
	if c > 1023 {
		c, h, s = 1023, 254, 63
	}
	return byte(h), byte(s) | byte(c>>8)<<6, byte(c)
}
