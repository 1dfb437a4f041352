package hybridsearch

import (
	"crypto/sha1"
	"fmt"
)

// pointNamespace is the UUID namespace of point ids (a fixed random UUID).
var pointNamespace = [16]byte{0x6b, 0x1f, 0x4e, 0x2a, 0x93, 0x0c, 0x4d, 0x51, 0xa7, 0x3e, 0x58, 0x19, 0xc2, 0x77, 0x0d, 0xe4}

// PointID returns the UUIDv5 of (file, chunk no), the id of a chunk's point
// in every store, so re-indexing overwrites instead of duplicating.
func PointID(file FileID, chunkNo int) string {
	h := sha1.New()
	h.Write(pointNamespace[:])
	fmt.Fprintf(h, "%d:%d", file, chunkNo)
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = (u[6] & 0x0f) | 0x50 // version 5
	u[8] = (u[8] & 0x3f) | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}
