# src/utils/gen_errors.awk — writes a C header from the error table src/utils/errors.tab
# (its format is described at its top), for one side:
#
#   awk -v side=extension -f src/utils/gen_errors.awk src/utils/errors.tab > src/utils/errors_table.h
#   awk -v side=gateway   -f src/utils/gen_errors.awk src/utils/errors.tab > gateway/errors_table.h
#
# Both Makefiles run it at build time (the headers are not committed). POSIX awk only
# (Debian's mawk is what a package build has: no python there, and awk is essential);
# the output depends on the table alone, so the same table always gives the same headers.
# A malformed table stops it with "errors.tab:LINE: ..." on stderr and status 1.

function fail(msg) {
	printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
	failed = 1
	exit 1
}

# 'A','B','C','D','E': the arguments of MAKE_SQLSTATE for a five-character SQLSTATE
function chars(code,    s, i) {
	s = ""
	for (i = 1; i <= 5; i++)
		s = s (i > 1 ? "," : "") "'" substr(code, i, 1) "'"
	return s
}

# Prints the lines of a macro's X list: backslash after all but the last
function print_list(n, lines,    i) {
	for (i = 1; i <= n; i++)
		printf "\t%s%s\n", lines[i], (i < n ? " \\" : "")
}

BEGIN {
	if (side != "extension" && side != "gateway") {
		print "gen_errors.awk: -v side=extension or -v side=gateway" > "/dev/stderr"
		failed = 1
		exit 1
	}
	nexc = 0
	nstate = 0
	nclass = 0
	otherwise = ""
}

/^[ \t]*(#|$)/ { next }

$1 == "exception" {
	if (NF != 4)
		fail("exception NAME STATUS TYPE: " NF - 1 " fields")
	if ($2 !~ /^[A-Z][A-Z0-9_]*$/)
		fail("exception name \"" $2 "\" is not a C name in capitals")
	if ($2 in exc_type)
		fail("exception " $2 " declared twice")
	if ($3 !~ /^[1-5][0-9][0-9]$/)
		fail("exception " $2 ": HTTP status \"" $3 "\"")
	if ($4 !~ /^[A-Za-z0-9_.]+#[A-Za-z0-9_]+$/)
		fail("exception " $2 ": \"__type\" \"" $4 "\" is not namespace#Name")
	short = $4
	sub(/.*#/, "", short)
	if (short in exc_of_short)
		fail("exception " $2 ": " short " is also exception " exc_of_short[short])
	exc_of_short[short] = $2
	exc_type[$2] = $4
	exc_status[$2] = $3
	exc_short[$2] = short
	exc_name[++nexc] = $2
	next
}

$1 == "sqlstate" {
	if (NF < 4)
		fail("sqlstate CODE NAME MACRO [TEXT]: " NF - 1 " fields")
	if ($2 !~ /^[0-9A-Z][0-9A-Z][0-9A-Z][0-9A-Z][0-9A-Z]$/)
		fail("SQLSTATE \"" $2 "\" is not five digits or capitals")
	if ($2 in state_exc)
		fail("SQLSTATE " $2 " listed twice")
	if (!($3 in exc_type))
		fail("SQLSTATE " $2 ": no exception " $3 " declared above")
	if ($4 !~ /^ERRCODE_[A-Z0-9_]+$/)
		fail("SQLSTATE " $2 ": \"" $4 "\" is not an ERRCODE_ macro")
	if ($4 in state_of_macro)
		fail("SQLSTATE " $2 ": " $4 " is also SQLSTATE " state_of_macro[$4])
	text = $0
	sub(/^[ \t]*[^ \t]+[ \t]+[^ \t]+[ \t]+[^ \t]+[ \t]+[^ \t]+[ \t]*/, "", text)
	if (index(text, "*/"))
		fail("SQLSTATE " $2 ": TEXT holds \"*/\"")
	state_of_macro[$4] = $2
	state_exc[$2] = $3
	state_macro[$2] = $4
	state_text[$2] = text
	state_code[++nstate] = $2
	next
}

$1 == "class" {
	if (NF != 3)
		fail("class CC NAME: " NF - 1 " fields")
	if ($2 !~ /^[0-9A-Z][0-9A-Z]$/)
		fail("class \"" $2 "\" is not two digits or capitals")
	if ($2 in class_exc)
		fail("class " $2 " listed twice")
	if (!($3 in exc_type))
		fail("class " $2 ": no exception " $3 " declared above")
	class_exc[$2] = $3
	class_code[++nclass] = $2
	next
}

$1 == "otherwise" {
	if (NF != 2)
		fail("otherwise NAME: " NF - 1 " fields")
	if (otherwise != "")
		fail("a second otherwise line")
	if (!($2 in exc_type))
		fail("otherwise: no exception " $2 " declared above")
	otherwise = $2
	next
}

{ fail("unknown record \"" $1 "\" (exception, sqlstate, class or otherwise)") }

END {
	if (failed)
		exit 1
	if (otherwise == "") {
		printf "%s: no otherwise line\n", FILENAME > "/dev/stderr"
		exit 1
	}
	if (side == "extension") {
		guard = "SINGLETABLE_ERRORS_TABLE_H"
		pre = "ST_EXC_"
		path = "src/utils/errors_table.h"
		use = "Included by utils/errors.h, after postgres.h (MAKE_SQLSTATE, PostgreSQL's ERRCODE_*)."
	} else {
		guard = "SINGLETABLE_GATEWAY_ERRORS_TABLE_H"
		pre = "GW_EXC_"
		path = "gateway/errors_table.h"
		use = "Included by gateway.h."
	}
	print "/*"
	print " * " path " — GENERATED at build time from src/utils/errors.tab by"
	print " * src/utils/gen_errors.awk: edit the table, not this file."
	print " * " use
	print " */"
	print "#ifndef " guard
	print "#define " guard
	print ""

	if (side == "extension") {
		print "/* singletable's own SQLSTATEs */"
		for (i = 1; i <= nstate; i++) {
			c = state_code[i]
			if (state_macro[c] !~ /^ERRCODE_ST_/)
				continue
			printf "/* %s: %s */\n", exc_short[state_exc[c]], state_text[c]
			printf "#define %s MAKE_SQLSTATE(%s)\n", state_macro[c], chars(c)
		}
		print ""
	}

	print "/* DynamoDB's exceptions, as \"__type\" has them on the wire */"
	for (i = 1; i <= nexc; i++)
		printf "#define %s%s \"%s\"\n", pre, exc_name[i], exc_type[exc_name[i]]
	print ""

	n = 0
	if (side == "extension") {
		print "/*"
		print " * X(sqlerrcode, MAKE_SQLSTATE(the table's code), exception) for each SQLSTATE"
		print " * of the table (errors.c checks at compile time that PostgreSQL's macro is"
		print " * the table's code)"
		print " */"
		print "#define ST_SQLSTATE_EXCEPTIONS(X) \\"
		for (i = 1; i <= nstate; i++) {
			c = state_code[i]
			lines[++n] = sprintf("X(%s, MAKE_SQLSTATE(%s), %s%s)", state_macro[c], chars(c), pre, state_exc[c])
		}
	} else {
		print "/* X(\"SQLSTATE\", exception) for each SQLSTATE of the table */"
		print "#define GW_SQLSTATE_EXCEPTIONS(X) \\"
		for (i = 1; i <= nstate; i++) {
			c = state_code[i]
			lines[++n] = sprintf("X(\"%s\", %s%s)", c, pre, state_exc[c])
		}
	}
	print_list(n, lines)
	print ""

	n = 0
	if (side == "extension") {
		print "/* X(ERRCODE_TO_CATEGORY's value, exception): every other SQLSTATE of a class */"
		print "#define ST_CLASS_EXCEPTIONS(X) \\"
		for (i = 1; i <= nclass; i++)
			lines[++n] = sprintf("X(MAKE_SQLSTATE(%s), %s%s)", chars(class_code[i] "000"), pre, class_exc[class_code[i]])
	} else {
		print "/* X(\"class\", exception): every other SQLSTATE of a class (its first two characters) */"
		print "#define GW_CLASS_EXCEPTIONS(X) \\"
		for (i = 1; i <= nclass; i++)
			lines[++n] = sprintf("X(\"%s\", %s%s)", class_code[i], pre, class_exc[class_code[i]])
	}
	print_list(n, lines)
	print ""

	print "/* any other SQLSTATE */"
	printf "#define %sOTHERWISE %s%s\n", pre, pre, otherwise
	print ""

	if (side == "gateway") {
		print "/* X(exception, \"Name\" after its '#', HTTP status) for each exception */"
		print "#define GW_EXCEPTION_STATUSES(X) \\"
		n = 0
		for (i = 1; i <= nexc; i++)
			lines[++n] = sprintf("X(%s%s, \"%s\", %d)", pre, exc_name[i], exc_short[exc_name[i]], exc_status[exc_name[i]])
		print_list(n, lines)
		print ""
	}
	print "#endif"
}
