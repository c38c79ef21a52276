#!/usr/bin/env bash
# bench_peers.sh - measure the empty-app floor and the peer apps with
# tui_first_paint.sh, appending one JSON line per run to RESULTS_JSONL.
#
# Usage:  bench_peers.sh [GROUP...]
#   groups: empty asv asv-fuzzy artui artui-offline digest-tui   (default: empty asv asv-fuzzy artui)
# Env:
#   PEERS=bench/out/peers   venvs: $PEERS/asv, $PEERS/asv-fuzzy, $PEERS/artui
#   DT=.venv                the venv with digest-tui installed (default: the checkout's)
#   EMPTY_PYTHONS="3.11:$PEERS/artui/bin/python"  label:python pairs for the empty app
#                           (default: this checkout's .venv python, labelled 3.11)
#   DATA=$PEERS/data        generated inputs (made if missing)
#   RUNS=5  SIZES="1000 10000 50000"  COLS=160 ROWS=48
#   OUT=$PEERS/results      results.jsonl and final screens go here
#
# Every run gets a fresh HOME/XDG_* under a temp dir, so nothing touches the
# real home, and each run starts from the same state.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PEERS=${PEERS:-$ROOT/bench/out/peers}
DATA=${DATA:-$PEERS/data}
OUT=${OUT:-$PEERS/results}
RUNS=${RUNS:-5}
SIZES=${SIZES:-"1000 10000 50000"}
COLS=${COLS:-160}
ROWS=${ROWS:-48}
RES=$OUT/results.jsonl
TFP=$HERE/tui_first_paint.sh
mkdir -p "$DATA" "$OUT/screens"

GROUPS_=("$@")
[ ${#GROUPS_[@]} -gt 0 ] || GROUPS_=(empty asv asv-fuzzy artui)

BH_PID=""
RUN_DIR=""
cleanup() {
  [ -n "$BH_PID" ] && kill "$BH_PID" 2>/dev/null
  [ -n "$RUN_DIR" ] && rm -rf "$RUN_DIR"
}
trap cleanup EXIT

WORD=zeppelin
FIRST_TEXT='Aardvark: Tiered KV-Cache'
NEEDLE_TEXT='Zeppelin: Lock-Free'

ensure_digest() {  # N
  local f=$DATA/d$1.txt
  [ -s "$f" ] || python3 "$HERE/gen_arxiv_digest.py" "$1" "$f" --meta "$DATA/d$1.meta.json" >/dev/null
  echo "$f"
}

ensure_artui_tmpl() {  # N
  local d=$DATA/artui_tmpl_$1
  if [ ! -s "$d/arxiv_articles.db" ]; then
    rm -rf "$d"
    "$PEERS/artui/bin/python" "$HERE/seed_artui_db.py" "$1" "$d" >/dev/null
  fi
  echo "$d"
}

fresh_home() {  # -> sets RUN_DIR and exports HOME/XDG_*
  [ -n "$RUN_DIR" ] && rm -rf "$RUN_DIR"
  RUN_DIR=$(mktemp -d /tmp/peers_run.XXXXXX)
  export HOME=$RUN_DIR/home
  export XDG_CONFIG_HOME=$HOME/.config XDG_DATA_HOME=$HOME/.local/share
  export XDG_CACHE_HOME=$HOME/.cache XDG_STATE_HOME=$HOME/.local/state
  mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME" "$XDG_STATE_HOME"
  unset ARTUI_DATA_DIR HTTPS_PROXY HTTP_PROXY https_proxy http_proxy
}

record() {  # app n run json_line
  local line=$4
  [ -n "$line" ] || line='{"status":"no_output"}'
  printf '{"app":"%s","n":%s,"run":%s,"ts":"%s",%s\n' "$1" "$2" "$3" "$(date -Is)" "${line#\{}" >>"$RES"
  echo "$1 n=$2 run=$3 $line"
}

run_empty() {
  local py
  for py in ${EMPTY_PYTHONS:-3.11:$ROOT/.venv/bin/python}; do
    for r in $(seq 1 "$RUNS"); do
      fresh_home; cd "$RUN_DIR" || exit 1
      line=$("$TFP" --json -l "empty-py${py%%:*}" -o "$OUT/screens/empty-py${py%%:*}_$r.txt" \
        "${py#*:} $HERE/empty_textual_app.py" 'READY' "$COLS" "$ROWS")
      record "empty-py${py%%:*}" 0 "$r" "$line"
    done
  done
}

run_asv() {  # venv-name app-label
  local venv=$1 app=$2 n f
  for n in $SIZES; do
    f=$(ensure_digest "$n")
    for r in $(seq 1 "$RUNS"); do
      fresh_home; cd "$RUN_DIR" || exit 1
      mkdir -p "$XDG_CONFIG_HOME/arxiv-browser"
      # skip the first-run welcome and what's-new modals
      echo '{"onboarding_seen": true, "shortcuts_hint_seen": true, "last_seen_whats_new": "0.3.6"}' \
        >"$XDG_CONFIG_HOME/arxiv-browser/config.json"
      line=$("$TFP" --json -l "$app" -o "$OUT/screens/${app}_${n}_$r.txt" \
        -s '/' 'Search mode' -s "$WORD" "$WORD" -s '' "matching \"$WORD\"" \
        "$PEERS/$venv/bin/arxiv-viewer browse -i $f" "$FIRST_TEXT" "$COLS" "$ROWS")
      record "$app" "$n" "$r" "$line"
    done
  done
}

ensure_page_digest() {  # N -> the same papers as d$N.txt, as one Daily Papers page
  local j=$DATA/d$1.jsonl f=$DATA/page$1.txt
  [ -s "$j" ] || python3 "$HERE/gen_arxiv_digest.py" "$1" "$j" --format jsonl >/dev/null
  [ -s "$f" ] || python3 "$HERE/arxiv_to_page.py" "$j" "$f"
  echo "$f"
}

run_digest_tui() {  # DT=venv of digest-tui (default $PEERS/dt); library imported once per size
  local dt=${DT:-$ROOT/.venv} n f lib t0 t1
  for n in $SIZES; do
    f=$(ensure_page_digest "$n")
    lib=$DATA/dt_home_$n
    if [ ! -s "$lib/.imported" ]; then
      rm -rf "$lib"; mkdir -p "$lib"
      t0=$(date +%s.%N)
      DIGEST_TUI_HOME=$lib "$dt/bin/digest-tui" import "$f" >/dev/null 2>&1
      t1=$(date +%s.%N)
      python3 -c "print(f'{$n/($t1-$t0):.0f}')" >"$lib/.imported"
      echo "digest-tui import n=$n: $(cat "$lib/.imported") papers/s"
    fi
    for r in $(seq 1 "$RUNS"); do
      fresh_home; cd "$RUN_DIR" || exit 1
      line=$("$TFP" --json -l digest-tui -o "$OUT/screens/digest-tui_${n}_$r.txt" \
        -s '/' '' -s "$WORD" "$NEEDLE_TEXT" \
        "env DIGEST_TUI_HOME=$lib $dt/bin/digest-tui" "$FIRST_TEXT" "$COLS" "$ROWS")
      record digest-tui "$n" "$r" "$line"
    done
  done
}

start_blackhole() {
  local pf
  pf=$(mktemp /tmp/peers_bh.XXXXXX)
  python3 "$HERE/blackhole_proxy.py" --max-seconds 7200 >"$pf" &
  BH_PID=$!
  for _ in $(seq 1 100); do [ -s "$pf" ] && break; sleep 0.05; done
  BH_PORT=$(head -1 "$pf"); rm -f "$pf"
}

run_artui() {  # mode: proxy|offline
  local mode=$1 app n tmpl
  app=artui; [ "$mode" = offline ] && app=artui-offline
  [ "$mode" = proxy ] && [ -z "$BH_PID" ] && start_blackhole
  for n in $SIZES; do
    tmpl=$(ensure_artui_tmpl "$n")
    for r in $(seq 1 "$RUNS"); do
      fresh_home; cd "$RUN_DIR" || exit 1
      cp -r "$tmpl" "$HOME/artui"   # fresh DB each run: artui marks rows viewed
      export ARTUI_DATA_DIR=$HOME/artui
      if [ "$mode" = proxy ]; then
        export HTTPS_PROXY=http://127.0.0.1:$BH_PORT HTTP_PROXY=http://127.0.0.1:$BH_PORT
        export https_proxy=$HTTPS_PROXY http_proxy=$HTTP_PROXY
        line=$("$TFP" --json -l "$app" -o "$OUT/screens/${app}_${n}_$r.txt" \
          -r 'key:f z j z j' 'zjzj' 'key:C-a C-k' \
          -s "$WORD" "$WORD" -s 'key:Enter' "$NEEDLE_TEXT" \
          "$PEERS/artui/bin/artui --user-dir $HOME/artui" "$FIRST_TEXT" "$COLS" "$ROWS")
      else
        line=$("$TFP" --json -l "$app" -o "$OUT/screens/${app}_${n}_$r.txt" \
          "$PEERS/artui/bin/artui --user-dir $HOME/artui" "$FIRST_TEXT" "$COLS" "$ROWS")
      fi
      record "$app" "$n" "$r" "$line"
    done
  done
}

for g in "${GROUPS_[@]}"; do
  case $g in
    empty) run_empty ;;
    asv) run_asv asv asv ;;
    asv-fuzzy) run_asv asv-fuzzy asv+rapidfuzz ;;
    artui) run_artui proxy ;;
    artui-offline) run_artui offline ;;
    digest-tui) run_digest_tui ;;
    *) echo "unknown group $g" >&2; exit 64 ;;
  esac
done
echo "results appended to $RES"
