# Sourced by measure.sh and shipped.sh: writes a script's report into the generated part of a
# results file, between the lines `<!-- NAME: begin -->` and `<!-- NAME: end -->`.

# write_generated NAME REPORT RESULTS SCRATCH_DIR
write_generated() {
	local name=$1 report=$2 results=$3 scratch=$4
	local begin="<!-- $name: begin -->" end="<!-- $name: end -->"
	if ! grep -qxF "$begin" "$results" 2>/dev/null || ! grep -qxF "$end" "$results"; then
		die "$results needs the lines $begin and $end around the generated part"
	fi
	step "writing the figures into ${results#"$ROOT"/}"
	printf '%s\n' "$report" >"$scratch/report.md"
	awk -v begin="$begin" -v end="$end" -v report="$scratch/report.md" '
		$0 == begin { print; while ((getline line < report) > 0) print line; skip = 1; next }
		$0 == end { skip = 0 }
		!skip' "$results" >"$scratch/results.md"
	cp "$scratch/results.md" "$results"
}
