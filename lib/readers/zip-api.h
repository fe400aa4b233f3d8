/*
 * libzip through a table filled on first use (lib/base/dynlib.h): include after <zip.h> (only
 * lib/readers/load-pt2.c does), call cgs_zip_load() first, then use libzip as usual. lib/readers/zip-api.c
 * alone sees the real declarations.
 */
#ifndef CGS_ZIP_API_H
#define CGS_ZIP_API_H

#include <zip.h>

#include "lib/base/diag.h"
#include "lib/base/dynlib.h"

#define CGS_ZIP_SYMBOLS(X)                                                                         \
    X(zip_discard) X(zip_error_code_zip) X(zip_error_fini) X(zip_error_init)                       \
    X(zip_error_init_with_code) X(zip_error_strerror) X(zip_fclose) X(zip_file_strerror)           \
    X(zip_fopen_index) X(zip_fread) X(zip_get_name) X(zip_get_num_entries) X(zip_name_locate)      \
    X(zip_open) X(zip_open_from_source) X(zip_source_buffer_create) X(zip_source_free)             \
    X(zip_stat_index) X(zip_strerror)

/* the table, and cgs_zip_load(): open libzip (once) and fill it */
CGS_DYNLIB_DECLARE(cgs_zip_api, cgs_zip_api, CGS_ZIP_SYMBOLS, cgs_zip_load)

#ifndef CGS_ZIP_API_TABLE
#define zip_discard (*cgs_zip_api.zip_discard)
#define zip_error_code_zip (*cgs_zip_api.zip_error_code_zip)
#define zip_error_fini (*cgs_zip_api.zip_error_fini)
#define zip_error_init (*cgs_zip_api.zip_error_init)
#define zip_error_init_with_code (*cgs_zip_api.zip_error_init_with_code)
#define zip_error_strerror (*cgs_zip_api.zip_error_strerror)
#define zip_fclose (*cgs_zip_api.zip_fclose)
#define zip_file_strerror (*cgs_zip_api.zip_file_strerror)
#define zip_fopen_index (*cgs_zip_api.zip_fopen_index)
#define zip_fread (*cgs_zip_api.zip_fread)
#define zip_get_name (*cgs_zip_api.zip_get_name)
#define zip_get_num_entries (*cgs_zip_api.zip_get_num_entries)
#define zip_name_locate (*cgs_zip_api.zip_name_locate)
#define zip_open (*cgs_zip_api.zip_open)
#define zip_open_from_source (*cgs_zip_api.zip_open_from_source)
#define zip_source_buffer_create (*cgs_zip_api.zip_source_buffer_create)
#define zip_source_free (*cgs_zip_api.zip_source_free)
#define zip_stat_index (*cgs_zip_api.zip_stat_index)
#define zip_strerror (*cgs_zip_api.zip_strerror)
#endif

#endif
