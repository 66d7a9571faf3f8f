# Sourced by the benchmark scripts that draw plots.
# bench_pyplot SRC_DIR sets PYPLOT to a python3 that imports matplotlib:
# the python3 on PATH, else Debian's /usr/bin/python3; when neither has
# it, SRC_DIR/scripts/setup.sh --bench installs Debian's
# python3-matplotlib (apt-get, as root). Returns 1 if that fails.
bench_pyplot() {
    local py
    for py in python3 /usr/bin/python3; do
        if command -v "$py" >/dev/null && "$py" -c 'import matplotlib' 2>/dev/null; then
            PYPLOT=$py
            return 0
        fi
    done
    "$1/scripts/setup.sh" --bench >&2 || return 1
    PYPLOT=/usr/bin/python3
    "$PYPLOT" -c 'import matplotlib' 2>/dev/null
}
