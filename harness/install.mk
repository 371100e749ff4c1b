# Installing rocetest the conventional way: `make install`
# and `make uninstall`, PREFIX (default /usr/local) and DESTDIR honoured
# everywhere, and `make man`.
#
# What `make install` puts under $(DESTDIR):
#   $(BINDIR)/rocetest
#   $(LIBDIR)/librocetest.a           the library and the report writers in one archive
#   $(INCLUDEDIR)/rocetest/*.h        harness/include/rocetest/*.h (the report writers' too)
#   $(PKGCONFIGDIR)/rocetest.pc       from harness/rocetest.pc.in
#   $(MANDIR)/man1/rocetest.1 and rocetest-COMMAND.1 for each command
#
# The man pages are rendered by help2man from the binary's own --help texts
# (the command list too), so they are remade whenever the binary is and never
# drift from it. `make uninstall` needs no build: it removes the same files,
# the man pages of the commands the installed rocetest lists.
# harness/tests/integration/install_check.sh checks all of this.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATAROOTDIR ?= $(PREFIX)/share
MANDIR ?= $(DATAROOTDIR)/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
INSTALL ?= install
INSTALL_PROGRAM ?= $(INSTALL) -m 755
INSTALL_DATA ?= $(INSTALL) -m 644
HELP2MAN ?= help2man

.PHONY: install uninstall man

INSTALL_HEADERS := $(wildcard harness/include/rocetest/*.h)

# ------------------------------------------------------------ one archive
# librocetest.a as installed: the objects of the four layers' archives and
# $(REPORT_LIB) under names that cannot collide (harness/lib/packet/json.c and
# harness/report/json.c are both json.o), so users link one library.
DIST = $(BUILD)/dist
DIST_LIB = $(DIST)/librocetest.a
DIST_OBJS = $(foreach l,$(LIB_LAYERS),$(patsubst harness/lib/$(l)/%.c,$(DIST)/obj/$(l)-%.o,$(call layer_srcs,$(l)))) \
	$(REPORT_SRCS:harness/report/%.c=$(DIST)/obj/report-%.o)

define DIST_LAYER_RULE
$(DIST)/obj/$(1)-%.o: $(BUILD)/obj/harness/lib/$(1)/%.o
	@mkdir -p $$(dir $$@)
	cp $$< $$@
endef
$(foreach l,$(LIB_LAYERS),$(eval $(call DIST_LAYER_RULE,$(l))))

$(DIST)/obj/report-%.o: $(BUILD)/obj/harness/report/%.o
	@mkdir -p $(dir $@)
	cp $< $@

$(DIST_LIB): $(DIST_OBJS)
	rm -f $@
	ar rcs $@ $^

# ------------------------------------------------------------ pkg-config
# Written for the PREFIX, LIBDIR and INCLUDEDIR of this make (rewritten only
# when they or the version change); the version is what `rocetest --version` says.
PC_LIBDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))
PC_INCLUDEDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))

$(DIST)/rocetest.pc: harness/rocetest.pc.in $(ROCETEST) FORCE
	@mkdir -p $(dir $@)
	@version=$$($(ROCETEST) --version | sed -n '1s/^rocetest //p'); \
	[ -n "$$version" ] || { echo "$(ROCETEST) --version printed no version" >&2; exit 1; }; \
	sed -e '/^#/d' -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(PC_LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(PC_INCLUDEDIR)|' -e "s|@VERSION@|$$version|" $< >$@.tmp && \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; echo "wrote $@ (prefix $(PREFIX))"; fi

# ------------------------------------------------------------ man pages
# harness/scripts/make-man.sh renders them with help2man from the binary's own
# --help texts, the list of commands included.
MAN_OUT = $(BUILD)/man
MAN_STAMP = $(MAN_OUT)/.stamp
# sed -n: "NAME SUMMARY" for each command of `rocetest --help` (for uninstall).
RT_COMMANDS_SED = /^Commands:/,/^$$/s/^  \([a-z][a-z0-9-]*\)  *\(.*\)/\1 \2/p

man: $(MAN_STAMP) ## man pages of rocetest and each command (help2man, from --help) in build/man/

$(MAN_STAMP): $(ROCETEST) harness/scripts/make-man.sh
	@bash harness/scripts/make-man.sh $(ROCETEST) $(MAN_OUT) $(HELP2MAN)
	@touch $@

# ------------------------------------------------------------ install
install: $(ROCETEST) $(DIST_LIB) $(DIST)/rocetest.pc $(MAN_STAMP) ## install rocetest, librocetest.a, headers, rocetest.pc, man pages (PREFIX, DESTDIR)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/rocetest \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man1
	$(INSTALL_PROGRAM) $(ROCETEST) $(DESTDIR)$(BINDIR)/rocetest
	$(INSTALL_DATA) $(DIST_LIB) $(DESTDIR)$(LIBDIR)/librocetest.a
	$(INSTALL_DATA) $(INSTALL_HEADERS) $(DESTDIR)$(INCLUDEDIR)/rocetest/
	$(INSTALL_DATA) $(DIST)/rocetest.pc $(DESTDIR)$(PKGCONFIGDIR)/rocetest.pc
	$(INSTALL_DATA) $(MAN_OUT)/*.1 $(DESTDIR)$(MANDIR)/man1/

# No build needed (uninstall reads no configuration): the headers are the
# source tree's, the man pages those of the commands the installed rocetest
# lists; when it is gone or cannot run, every rocetest-*.1 in $(MANDIR)/man1.
uninstall: ## remove what make install installed (same PREFIX, DESTDIR)
	@set -e; man1=$(DESTDIR)$(MANDIR)/man1; rt=$(DESTDIR)$(BINDIR)/rocetest; \
	if [ -x "$$rt" ] && "$$rt" --help >/dev/null 2>&1; then \
		pages=$$("$$rt" --help | sed -n '$(RT_COMMANDS_SED)' | while read -r c summary; do \
			echo "$$man1/rocetest-$$c.1"; done); \
	else \
		echo "uninstall: $$rt does not run; removing every $$man1/rocetest-*.1"; \
		pages=$$(ls "$$man1"/rocetest-*.1 2>/dev/null || true); \
	fi; \
	files="$$rt $(DESTDIR)$(LIBDIR)/librocetest.a $(DESTDIR)$(PKGCONFIGDIR)/rocetest.pc \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/rocetest/,$(notdir $(INSTALL_HEADERS))) \
		$$man1/rocetest.1 $$pages"; \
	echo rm -f $$files; rm -f $$files
	@if [ -d $(DESTDIR)$(INCLUDEDIR)/rocetest ]; then \
		rmdir $(DESTDIR)$(INCLUDEDIR)/rocetest 2>/dev/null || \
		echo "uninstall: kept $(DESTDIR)$(INCLUDEDIR)/rocetest: files other than ours are in it"; \
	fi
