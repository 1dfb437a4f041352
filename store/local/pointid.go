package local

// pointID is a point id in 16 bytes instead of a 36-byte string: the UUID
// that hs.PointID formats. Ids compare as their strings do
// (lowercase hex digits at fixed places), so ties still break by point id.
type pointID [16]byte

// parsePointID parses a UUID in PointID's form: lowercase hex digits with
// dashes after the 8th, 12th, 16th and 20th.
func parsePointID(s string) (pointID, bool) {
	var id pointID
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return id, false
	}
	j := 0
	for i := 0; i < len(s); {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			i++
			continue
		}
		hi, lo := unhex(s[i]), unhex(s[i+1])
		if hi > 15 || lo > 15 {
			return id, false
		}
		id[j] = hi<<4 | lo
		j++
		i += 2
	}
	return id, true
}

// unhex returns the value of a lowercase hex digit, or 255.
func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return 255
}

// String formats the id as hs.PointID does.
func (id pointID) String() string {
	const digits = "0123456789abcdef"
	var b [36]byte
	j := 0
	for i, c := range id {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b[j] = '-'
			j++
		}
		b[j], b[j+1] = digits[c>>4], digits[c&15]
		j += 2
	}
	return string(b[:])
}
