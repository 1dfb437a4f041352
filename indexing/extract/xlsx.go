package extract

import (
	"bytes"

	"github.com/xuri/excelize/v2"
)

// xlsx extracts an Excel workbook with excelize after the zip guard has
// read every entry: per sheet "## Sheet: name", then one line per row with
// the cells' formatted values joined by " | ". Title comes from the
// document properties.
func (j *job) xlsx() error {
	a, err := j.openZip()
	if err != nil {
		return err
	}
	if err := a.verify(); err != nil {
		return err
	}
	f, err := excelize.OpenReader(bytes.NewReader(j.data), excelize.Options{
		UnzipSizeLimit:    j.lim.zipTotal,
		UnzipXMLSizeLimit: min(j.lim.zipTotal, 16<<20),
	})
	if err != nil {
		return j.corrupt(err, "xlsx")
	}
	defer f.Close()
	if props, err := f.GetDocProps(); err == nil {
		j.title = props.Title
	}
	for _, sheet := range f.GetSheetList() {
		if err := j.b.heading(2, "Sheet: "+sheet); err != nil {
			return err
		}
		if err := j.xlsxSheet(f, sheet); err != nil {
			return err
		}
		j.b.end()
	}
	return nil
}

func (j *job) xlsxSheet(f *excelize.File, sheet string) error {
	rows, err := f.Rows(sheet)
	if err != nil {
		return j.corrupt(err, "xlsx sheet "+sheet)
	}
	defer rows.Close()
	for rows.Next() {
		cells, err := rows.Columns()
		if err != nil {
			return j.corrupt(err, "xlsx sheet "+sheet)
		}
		for i, c := range cells {
			cells[i] = collapseSpace(c)
		}
		if err := j.b.line(joinCells(cells)); err != nil {
			return err
		}
	}
	return j.corrupt(rows.Error(), "xlsx sheet "+sheet)
}
