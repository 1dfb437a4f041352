package ncsim

import "testing"

func TestPHPQuery(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "q=kuberntes+upgrade&top_k=10", "q=kuberntes+upgrade&top_k=10"},
		{"repeated name: the last value, in the first place", "resource=a&x=1&resource=b", "resource=b&x=1"},
		{"list", "a[]=x&a[]=y", "a%5B0%5D=x&a%5B1%5D=y"},
		{"keyed and nested", "f[k]=1&f[n][]=2", "f%5Bk%5D=1&f%5Bn%5D%5B0%5D=2"},
		{"a scalar after an array replaces it", "a[]=1&a=2", "a=2"},
		{"dots and spaces in a name", "file.id=3&a+b=4", "file_id=3&a_b=4"},
		{"a bracket without its end", "a[b=1", "a_b=1"},
		{"empty name and empty pairs", "=1&&b=", "b="},
		{"no value", "flag", "flag="},
		{"urlencode", "u=https%3A%2F%2Fcloud.example%2Findex.php%2Fapps%2Fx%2Fmcp&s=a%20b~%2A", "u=https%3A%2F%2Fcloud.example%2Findex.php%2Fapps%2Fx%2Fmcp&s=a+b%7E%2A"},
		{"nothing", "", ""},
	}
	for _, tt := range tests {
		if got := phpQuery(tt.in); got != tt.want {
			t.Errorf("%s: phpQuery(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}
