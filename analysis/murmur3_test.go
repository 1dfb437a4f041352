package analysis

import "testing"

func TestMurmur3(t *testing.T) {
	tests := []struct {
		name string
		in   string
		seed uint32
		want uint32
	}{
		// Vectors from SMHasher's verification set, as listed on Wikipedia,
		// and from the mmh3 Python package's documentation.
		{name: "empty", in: "", seed: 0, want: 0},
		{name: "empty seed 1", in: "", seed: 1, want: 0x514e28b7},
		{name: "empty seed max", in: "", seed: 0xffffffff, want: 0x81f16f39},
		{name: "ff x4", in: "\xff\xff\xff\xff", seed: 0, want: 0x76293b50},
		{name: "four bytes", in: "\x21\x43\x65\x87", seed: 0, want: 0xf55b516b},
		{name: "four bytes seeded", in: "\x21\x43\x65\x87", seed: 0x5082edee, want: 0x2362f9de},
		{name: "three bytes", in: "\x21\x43\x65", seed: 0, want: 0x7e4a8634},
		{name: "two bytes", in: "\x21\x43", seed: 0, want: 0xa0f7b07a},
		{name: "one byte", in: "\x21", seed: 0, want: 0x72661cf4},
		{name: "zeros x4", in: "\x00\x00\x00\x00", seed: 0, want: 0x2362f9de},
		{name: "zeros x3", in: "\x00\x00\x00", seed: 0, want: 0x85f0b427},
		{name: "zeros x2", in: "\x00\x00", seed: 0, want: 0x30f4c306},
		{name: "zero", in: "\x00", seed: 0, want: 0x514e28b7},
		{name: "hello world", in: "Hello, world!", seed: 0x9747b28c, want: 0x24884cba},
		{name: "quick fox", in: "The quick brown fox jumps over the lazy dog", seed: 0x9747b28c, want: 0x2fa826cd},
		{name: "mmh3 hello", in: "hello", seed: 0, want: 613153351},
		{name: "mmh3 foo", in: "foo", seed: 0, want: uint32(0xffffffff - 156908512 + 1)}, // mmh3.hash("foo") == -156908512
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := murmur3(tt.in, tt.seed); got != tt.want {
				t.Errorf("murmur3(%q, %#x) = %#x, want %#x", tt.in, tt.seed, got, tt.want)
			}
			if got := murmur3([]byte(tt.in), tt.seed); got != tt.want {
				t.Errorf("murmur3([]byte(%q), %#x) = %#x, want %#x", tt.in, tt.seed, got, tt.want)
			}
		})
	}
}

func TestUnsignedAbs(t *testing.T) {
	tests := []struct {
		name string
		in   uint32
		want uint32
	}{
		{name: "zero", in: 0, want: 0},
		{name: "positive", in: 613153351, want: 613153351},
		{name: "max int32", in: 0x7fffffff, want: 0x7fffffff},
		{name: "minus one", in: 0xffffffff, want: 1},
		{name: "negative", in: uint32(0xffffffff - 156908512 + 1), want: 156908512},
		// Rust's i32::unsigned_abs(i32::MIN) is 2^31; a plain i32 abs would overflow.
		{name: "min int32", in: 0x80000000, want: 0x80000000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := unsignedAbs(tt.in); got != tt.want {
				t.Errorf("unsignedAbs(%#x) = %#x, want %#x", tt.in, got, tt.want)
			}
		})
	}
}
