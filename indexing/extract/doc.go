// Package extract turns a downloaded file into plain text for chunking.
//
// An Extractor recognises a file by its MIME type, then its extension, then
// its content, and returns a hybridsearch.Text whose Body is valid UTF-8 with
// Markdown heading lines ("# ", "## ") wherever the format has headings and
// blank lines between paragraphs. It handles plain text, Markdown, HTML, PDF
// (poppler's pdftotext, which must be installed), DOCX, ODT, XLSX, ODS, PPTX,
// ODP, RTF, CSV, JSON, XML, EPUB and EML.
//
// Every input is untrusted: the Extractor bounds input size, output size,
// zip archives (entry count, real uncompressed bytes, expansion ratio) and
// time, and turns a parser's panic into an error. Failures are
// hybridsearch errors: EINVALID for unsupported, corrupt or hostile files
// (the file's fault, never worth a retry) and ETOOLARGE for inputs over the
// size limit.
package extract
