module github.com/hybrid-search/hybridsearch/analysis/langeval

go 1.26.0

replace github.com/hybrid-search/hybridsearch => ../..

require (
	github.com/hybrid-search/hybridsearch v0.0.0-00010101000000-000000000000
	github.com/pemistahl/lingua-go v1.4.0
)

require (
	github.com/abadojack/whatlanggo v1.0.1 // indirect
	github.com/blevesearch/snowballstem v0.9.0 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	github.com/shopspring/decimal v1.3.1 // indirect
	golang.org/x/exp v0.0.0-20221106115401-f9659909a136 // indirect
	golang.org/x/text v0.43.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
