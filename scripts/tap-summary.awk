# Summarise the TAP of run_kselftest.sh.  Each kselftest's own results are
# nested one level ("# ok 3 name"); a test program that failed or skipped
# without a failing nested result counts once itself.  The last line is
# "N passed, N failed, N skipped"; the exit status is 1 if anything failed
# or nothing passed.  Under each FAIL come the test's own diagnostics (the
# harness's "file:line: Expected ..." and TH_LOG lines), so that a log that
# keeps only this summary, as CI's does, still says why.
function report(kind, name) {
	count[kind]++
	printf "%-4s %s%s\n", kind, name, boot == "" ? "" : " [" boot "]"
}
function explain(	i) {
	for (i = 1; i <= ndiag && i <= 20; i++)
		printf "     | %s\n", diag[i]
	if (ndiag > 20)
		printf "     | (%d more lines in the TAP file)\n", ndiag - 20
}
{ sub(/\r$/, ""); gsub(/\033\[[0-9;?]*[a-zA-Z]/, ""); gsub(/\033[a-zA-Z]/, "") }
/^# selftests: / { suite = $3; sub(/:$/, "", suite); nested = nfail = ndiag = 0; next }
/^# # / && !/^# # +(RUN|OK|FAIL|SKIP) / && !/^# # (PASSED|FAILED|Totals):/ {
	diag[++ndiag] = substr($0, 5)
	next
}
/^# (not )?ok [0-9]+ / {
	line = $0
	sub(/^# /, "", line)
	nok = (line ~ /^not ok/)
	sub(/^(not )?ok [0-9]+ /, "", line)
	nested++
	if (line ~ /# *SKIP/) report("SKIP", suite ": " line)
	else if (line ~ /# *XFAIL/) report("PASS", suite ": " line)
	else if (nok) { report("FAIL", suite ": " line); explain(); nfail++ }
	else report("PASS", suite ": " line)
	ndiag = 0
	next
}
/^(not )?ok [0-9]+ selftests: / {
	line = $0
	nok = (line ~ /^not ok/)
	sub(/^(not )?ok [0-9]+ selftests: /, "", line)
	if (line ~ /# *SKIP/) { if (!nested) report("SKIP", line) }
	else if (nok && !nfail) { report("FAIL", line " (the program failed)"); explain() }
	else if (!nok && !nested) report("PASS", line)
	nested = nfail = ndiag = 0
	next
}
END {
	printf "%d passed, %d failed, %d skipped\n", count["PASS"], count["FAIL"], count["SKIP"]
	exit (count["FAIL"] > 0 || count["PASS"] == 0)
}
