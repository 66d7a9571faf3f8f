#!/bin/sh
# check_settings_doc.sh SRCROOT
# Every setting declared in a settings.def file must have a row in
# docs/settings.md (a line starting with "| `NAME`").
src=$1
fail=0
for def in $(find "$src/runtime" -name settings.def | sort); do
    [ -f "$def" ] || continue
    for name in $(grep -o 'HCRT_SETTING("[A-Z0-9_]*"' "$def" | cut -d'"' -f2); do
        if ! grep -q "^| \`$name\` |" "$src/docs/settings.md"; then
            echo "$name (from ${def#$src/}) has no row in docs/settings.md"
            fail=1
        fi
    done
done
exit $fail
