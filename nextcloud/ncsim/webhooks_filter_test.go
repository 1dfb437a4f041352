package ncsim

import "testing"

func TestMongoMatch(t *testing.T) {
	doc := `{"event":{"node":{"id":437,"path":"/alice/files/Notes/Shopping.md"},"class":"OCP\\Files\\Events\\Node\\NodeWrittenEvent","tags":["a","b"],"objectIds":["437"]},"user":{"uid":"alice","displayName":"Alice"},"time":1700100000}`
	anonDoc := `{"event":{"node":{"path":"/alice/files/x"},"class":"C"},"user":null,"time":5}`
	tests := []struct {
		name    string
		filter  string
		doc     string
		want    bool
		wantErr bool
	}{
		{"empty object", `{}`, doc, true, false},
		{"empty list", `[]`, doc, true, false},
		{"regex on path", `{"event.node.path":"/^\\/[^\\/]+\\/files\\//"}`, doc, true, false},
		{"regex misses", `{"event.node.path":"/^\\/[^\\/]+\\/appdata_/"}`, doc, false, false},
		{"regex flags", `{"event.node.path":"/SHOPPING\\.MD$/i"}`, doc, true, false},
		{"regex without flag is case sensitive", `{"event.node.path":"/SHOPPING/"}`, doc, false, false},
		{"unescaped delimiter breaks the regex", `{"event.node.path":"/^/alice/files/"}`, doc, false, false},
		{"unknown modifier", `{"event.node.path":"/x/q"}`, doc, false, false},
		{"plain equality", `{"user.uid":"alice"}`, doc, true, false},
		{"int equality", `{"event.node.id":437}`, doc, true, false},
		{"string is not int (strict)", `{"event.node.id":"437"}`, doc, false, false},
		{"missing path", `{"event.node.owner":"alice"}`, doc, false, false},
		{"list membership", `{"event.tags":"b"}`, doc, true, false},
		{"list element", `{"event.objectIds":"437"}`, doc, true, false},
		{"two keys are $and", `{"user.uid":"alice","event.node.id":1}`, doc, false, false},
		{"$or", `{"$or":[{"user.uid":"bob"},{"event.node.id":437}]}`, doc, true, false},
		{"$or none", `{"$or":[{"user.uid":"bob"},{"event.node.id":1}]}`, doc, false, false},
		{"$and", `{"$and":[{"user.uid":"alice"},{"event.node.id":437}]}`, doc, true, false},
		{"$nor", `{"$nor":[{"user.uid":"bob"}]}`, doc, true, false},
		{"$not", `{"$not":{"user.uid":"alice"}}`, doc, false, false},
		{"field $not", `{"user.uid":{"$not":{"$eq":"x"}}}`, doc, false, true},
		{"$in", `{"user.uid":{"$in":["bob","alice"]}}`, doc, true, false},
		{"$in loose", `{"event.node.id":{"$in":["437"]}}`, doc, true, false},
		{"$nin", `{"user.uid":{"$nin":["bob"]}}`, doc, true, false},
		{"$ne", `{"user.uid":{"$ne":"alice"}}`, doc, false, false},
		{"$ne on missing", `{"user.email":{"$ne":"x"}}`, doc, true, false},
		{"$gt and $lt", `{"time":{"$gt":1700000000,"$lt":1800000000}}`, doc, true, false},
		{"$gte fails", `{"time":{"$gte":1800000000}}`, doc, false, false},
		{"$exists", `{"event.node.id":{"$exists":true}}`, doc, true, false},
		{"$exists false on a deleted node", `{"event.node.id":{"$exists":false}}`, anonDoc, true, false},
		{"null user does not equal null (isset)", `{"user":null}`, anonDoc, false, false},
		{"null user does not exist", `{"user":{"$exists":false}}`, anonDoc, true, false},
		{"$all", `{"event.tags":{"$all":["a","b"]}}`, doc, true, false},
		{"$mod", `{"event.node.id":{"$mod":[2,1]}}`, doc, true, false},
		{"unknown operator", `{"user.uid":{"$regex":"a"}}`, doc, false, true},
		{"nested object is not a sub-document", `{"user":{"uid":"alice"}}`, doc, false, true},
		{"$or needs a list", `{"$or":{"a":1}}`, doc, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			filter, err := decodeJSONValue([]byte(tt.filter))
			if err != nil {
				t.Fatal(err)
			}
			d, err := decodeJSONValue([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			got, err := mongoMatch(filter, d)
			if (err != nil) != tt.wantErr {
				t.Fatalf("mongoMatch(%s) error = %v, want error %v", tt.filter, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("mongoMatch(%s) = %v, want %v", tt.filter, got, tt.want)
			}
		})
	}
}

func TestPHPComparisons(t *testing.T) {
	n := func(s string) any { v, _ := decodeJSONValue([]byte(s)); return v }
	tests := []struct {
		name        string
		a, b        any
		strict      bool
		loose       bool
		compareSign int
	}{
		{"int int", n("1"), n("1"), true, true, 0},
		{"int float", n("1"), n("1.0"), false, true, 0},
		{"numeric string", "10", n("10"), false, true, 0},
		{"numeric strings compare as numbers", "10", "9", false, false, 1},
		{"strings", "abc", "abd", false, false, -1},
		{"null and empty string", nil, "", false, true, 0},
		{"null and zero", nil, n("0"), false, true, 0},
		{"bools", true, "x", false, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := phpStrictEqual(tt.a, tt.b); got != tt.strict {
				t.Errorf("=== is %v, want %v", got, tt.strict)
			}
			if got := phpLooseEqual(tt.a, tt.b); got != tt.loose {
				t.Errorf("== is %v, want %v", got, tt.loose)
			}
			if got := phpCompare(tt.a, tt.b); got != tt.compareSign {
				t.Errorf("<=> is %d, want %d", got, tt.compareSign)
			}
		})
	}
}
