// Package storetest is the contract every store must pass: Run writes,
// updates, deletes and searches through the method set both local.Store and
// qdrant.Store implement, and checks what Qdrant itself would return
// (cosine scores, IDF-weighted sparse scores, per-user isolation, filters,
// ties broken by point id).
//
// A store's test calls it with a function that opens a fresh, empty store:
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) storetest.Store {
//			s, err := local.Open(t.TempDir(), local.Options{})
//			if err != nil {
//				t.Fatal(err)
//			}
//			t.Cleanup(func() { s.Close() })
//			return s
//		})
//	}
package storetest
