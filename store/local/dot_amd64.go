//go:build !purego

package local

import "golang.org/x/sys/cpu"

// hasAVX2FMA reports whether dotRows may use the AVX2 and FMA assembly. It
// is fixed at start-up; tests clear it to exercise the pure-Go fallback.
var hasAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// dotRowsAVX2 sets out[i] to the dot product of q and the row
// slab[slots[i]*len(q):][:len(q)]. Every row must lie inside slab and
// len(out) ≥ len(slots): the assembly checks neither.
//
//go:noescape
func dotRowsAVX2(q, slab []float32, slots []int32, out []float32)

// dotRows sets out[i] to the dot product of q and slot slots[i]'s row of
// slab, rows being len(q) floats long. It panics when a row lies outside
// slab or out is shorter than slots.
func dotRows(q, slab []float32, slots []int32, out []float32) {
	out = out[:len(slots)]
	if !hasAVX2FMA {
		dotRowsGeneric(q, slab, slots, out)
		return
	}
	dim := len(q)
	for _, s := range slots {
		if s < 0 || (int(s)+1)*dim > len(slab) {
			panic("store: dense row out of range")
		}
	}
	dotRowsAVX2(q, slab, slots, out)
}
