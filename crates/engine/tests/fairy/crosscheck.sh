#!/usr/bin/env bash
# Cross-checks the engine's Electrum perft against Fairy-Stockfish, for every `fen` and `perft`
# line of tests/perft/electrum.perft (not part of the test suite; needs a Fairy-Stockfish with
# custom pieces, which Debian's 11.1 package lacks).
#   FSF=/path/to/fairy-stockfish CHESSGOLD=target/release/chessgold crates/engine/tests/fairy/crosscheck.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fsf=${FSF:-fairy-stockfish}
chessgold=${CHESSGOLD:-chessgold}
ini="$here/electrum.ini"
status=0
fen=""
while read -r key a b; do
    case "$key" in
    fen) fen="$a $b" ;;
    perft)
        theirs=$(printf 'uci\nsetoption name VariantPath value %s\nsetoption name UCI_Variant value electrum\nposition fen %s\ngo perft %s\nquit\n' \
            "$ini" "$fen" "$a" | "$fsf" 2>&1 | sed -n 's/^Nodes searched: //p')
        ours=$("$chessgold" perft --variant electrum --fen "$fen" "$a" 2>/dev/null | cut -d' ' -f1)
        if [ "$theirs" = "$b" ] && [ "$ours" = "$b" ]; then echo "ok   $a $b $fen"; else
            echo "DIFF $a file=$b engine=$ours fairy-stockfish=$theirs $fen"; status=1; fi ;;
    esac
done < "$here/../perft/electrum.perft"
exit $status
