package datasets

// FormatParquet is a parquet file whose schema is recognised from its
// columns.
const FormatParquet Format = "parquet"

// parquetFormat names a container, not a schema: --format parquet insists
// that the file is parquet and detects its schema from the column names,
// as with FormatAuto. (Every format can be read from parquet without it.)
var parquetFormat = &formatDef{
	Name:      FormatParquet,
	Doc:       "parquet export of any of these, recognised from its columns",
	Container: &containers[encParquet],
}
