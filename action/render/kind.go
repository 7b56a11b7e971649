package render

// ResultKind is the kind of the Result document, next to its apiVersion
// (output.Write adds the member).
const ResultKind = "RenderResult"

// DocumentKind is ResultKind.
func (Result) DocumentKind() string { return ResultKind }
