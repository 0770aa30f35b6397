# SPDX-License-Identifier: GPL-2.0
# Installation (issue 9), included at the end of the top-level Makefile.
#   make install            programs, man pages, systemd unit, /etc/default/evdrain,
#                           the modprobe.d example, the --on-chunk hooks, the
#                           ClickHouse loader and its DDL (PREFIX, DESTDIR honoured)
#   make uninstall          removes what install put there (an edited
#                           /etc/default/evdrain is kept)
#   make install-list       prints the installed paths (under DESTDIR), one a line
#   make dkms-install       the module's sources under /usr/src/evtrace-VERSION
#                           for dkms add/build/install (DESTDIR honoured)
#   make dkms-uninstall     dkms remove evtrace/VERSION --all, then the sources
# Knobs: PREFIX (/usr/local), DESTDIR, BINDIR, SBINDIR, MANDIR, DOCDIR, UNITDIR, HOOKDIR,
# DATADIR (PREFIX/share; evview's page in DATADIR/evtrace/view, compiled into evview;
# the ClickHouse DDL in CHDIR, DATADIR/evtrace/clickhouse),
# SYSCONFDIR (/etc), DKMS_SRCDIR (/usr/src/evtrace-VERSION).

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/evtrace
# systemd reads units from /usr/local/lib/systemd/system too.
UNITDIR ?= $(PREFIX)/lib/systemd/system
# evdrain --on-chunk examples (shipping, logging).
HOOKDIR ?= $(PREFIX)/lib/evtrace/hooks
DATADIR ?= $(PREFIX)/share
VIEWDIR ?= $(DATADIR)/evtrace/view
# The ClickHouse tables' DDL (evtrace-ch-load reads it there).
CHDIR ?= $(DATADIR)/evtrace/clickhouse
SYSCONFDIR ?= /etc
DKMS_SRCDIR ?= /usr/src/evtrace-$(VERSION)

INSTALL ?= install
D := $(DESTDIR)

# What goes where: "source destination mode" triples, so that install,
# uninstall and install-list cannot disagree.
INSTALL_ITEMS := \
	$(BUILD)/bin/evdrain $(SBINDIR)/evdrain 0755 \
	$(BUILD)/bin/evctl $(SBINDIR)/evctl 0755 \
	$(BUILD)/bin/evcat $(BINDIR)/evcat 0755 \
	$(BUILD)/bin/evstat $(BINDIR)/evstat 0755 \
	$(BUILD)/bin/evview $(BINDIR)/evview 0755 \
	$(BUILD)/bin/evexport $(BINDIR)/evexport 0755 \
	userspace/dist/clickhouse/evtrace-ch-load $(BINDIR)/evtrace-ch-load 0755 \
	userspace/dist/clickhouse/evtrace-schema.sql $(CHDIR)/evtrace-schema.sql 0644 \
	userspace/evview/www/index.html $(VIEWDIR)/index.html 0644 \
	userspace/evview/www/view.js $(VIEWDIR)/view.js 0644 \
	userspace/evview/www/view.css $(VIEWDIR)/view.css 0644 \
	$(BUILD)/man/evdrain.8 $(MANDIR)/man8/evdrain.8 0644 \
	$(BUILD)/man/evctl.8 $(MANDIR)/man8/evctl.8 0644 \
	$(BUILD)/man/evcat.1 $(MANDIR)/man1/evcat.1 0644 \
	$(BUILD)/man/evstat.1 $(MANDIR)/man1/evstat.1 0644 \
	$(BUILD)/man/evview.1 $(MANDIR)/man1/evview.1 0644 \
	$(BUILD)/man/evexport.1 $(MANDIR)/man1/evexport.1 0644 \
	$(BUILD)/man/evtrace-ch-load.1 $(MANDIR)/man1/evtrace-ch-load.1 0644 \
	$(BUILD)/man/evtrace.4 $(MANDIR)/man4/evtrace.4 0644 \
	userspace/dist/evdrain.service.in $(UNITDIR)/evdrain.service 0644 \
	userspace/dist/evtrace.modprobe.conf $(DOCDIR)/examples/evtrace.modprobe.conf 0644 \
	userspace/dist/hooks/evtrace-ship-rsync $(HOOKDIR)/evtrace-ship-rsync 0755 \
	userspace/dist/hooks/evtrace-chunk-log $(HOOKDIR)/evtrace-chunk-log 0755
# Installed only when absent (it is the administrator's file afterwards).
DEFAULTS_SRC := userspace/dist/evdrain.default
DEFAULTS_DST := $(SYSCONFDIR)/default/evdrain

# The module sources DKMS builds from.
DKMS_FILES := dkms.conf Kbuild VERSION kmod/gen-syscalls $(wildcard kmod/*.[ch] kmod/core/*.[ch] include/evtrace/*.h)

.PHONY: install uninstall install-list dkms-install dkms-uninstall man

# @VERSION@, @SBINDIR@, @BINDIR@, @UNITDIR@, @DOCDIR@, @HOOKDIR@, @VIEWDIR@, @CHDIR@, @SYSCONFDIR@ in
# man pages (at build time, below), the unit, the defaults and the loader (evview's page has none: it goes through unchanged).
SUBST = sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@BINDIR@|$(BINDIR)|g' \
	-e 's|@UNITDIR@|$(UNITDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g' -e 's|@HOOKDIR@|$(HOOKDIR)|g' \
	-e 's|@VIEWDIR@|$(VIEWDIR)|g' -e 's|@CHDIR@|$(CHDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g'

# The man pages, with the version and the paths in (man -l build/man/evcat.1):
# made at build time, and again whenever the substitutions change (another
# PREFIX), which the stamp holds.
MAN_PAGES := $(patsubst userspace/man/%,$(BUILD)/man/%,$(wildcard userspace/man/*.[1-8]))
MAN_STAMP := $(BUILD)/man/.subst
ifneq ($(file <$(MAN_STAMP)),$(SUBST))
$(shell mkdir -p $(BUILD)/man)
$(file >$(MAN_STAMP),$(SUBST))
endif
man: $(MAN_PAGES)
$(BUILD)/man/%: userspace/man/% $(MAN_STAMP) VERSION
	@echo '  GEN     $@'
	@$(SUBST) $< > $@.tmp && mv $@.tmp $@

install: $(BUILD)/bin/evdrain $(BUILD)/bin/evctl $(BUILD)/bin/evcat $(BUILD)/bin/evstat $(BUILD)/bin/evview \
	$(BUILD)/bin/evexport $(MAN_PAGES)
	@set -e; set -- $(INSTALL_ITEMS); \
	while [ $$# -gt 0 ]; do \
		src=$$1 dst=$(D)$$2 mode=$$3; shift 3; \
		$(INSTALL) -d -m 0755 "$$(dirname "$$dst")"; \
		case "$$src" in \
		$(BUILD)/*) $(INSTALL) -m $$mode "$$src" "$$dst" ;; \
		*) $(SUBST) "$$src" > "$$dst.tmp"; chmod $$mode "$$dst.tmp"; mv -f "$$dst.tmp" "$$dst" ;; \
		esac; \
		echo "  INSTALL $$dst"; \
	done; \
	dst=$(D)$(DEFAULTS_DST); \
	$(INSTALL) -d -m 0755 "$$(dirname "$$dst")"; \
	if [ -e "$$dst" ]; then \
		echo "  KEEP    $$dst (exists; the shipped one is $(DEFAULTS_SRC))"; \
	else \
		$(SUBST) $(DEFAULTS_SRC) > "$$dst"; chmod 0644 "$$dst"; echo "  INSTALL $$dst"; \
	fi; \
	if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi

uninstall:
	@set -e; set -- $(INSTALL_ITEMS); \
	while [ $$# -gt 0 ]; do \
		dst=$(D)$$2; shift 3; \
		if [ -e "$$dst" ]; then rm -f "$$dst"; echo "  RM      $$dst"; fi; \
	done; \
	dst=$(D)$(DEFAULTS_DST); \
	if [ -e "$$dst" ]; then \
		if $(SUBST) $(DEFAULTS_SRC) | cmp -s "$$dst" -; then rm -f "$$dst"; echo "  RM      $$dst"; \
		else echo "  KEEP    $$dst (edited)"; fi; \
	fi; \
	rmdir "$(D)$(DOCDIR)/examples" "$(D)$(DOCDIR)" "$(D)$(HOOKDIR)" "$$(dirname "$(D)$(HOOKDIR)")" \
		"$(D)$(VIEWDIR)" "$(D)$(CHDIR)" "$$(dirname "$(D)$(VIEWDIR)")" 2>/dev/null || true; \
	if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi

install-list:
	@set -- $(INSTALL_ITEMS); \
	while [ $$# -gt 0 ]; do echo "$(D)$$2"; shift 3; done; \
	echo "$(D)$(DEFAULTS_DST)"

dkms-install:
	@set -e; dst=$(D)$(DKMS_SRCDIR); \
	rm -rf "$$dst"; \
	for f in $(DKMS_FILES); do \
		$(INSTALL) -D -m 0644 "$$f" "$$dst/$$f"; \
	done; \
	echo "  INSTALL $$dst ($(words $(DKMS_FILES)) files): dkms add evtrace/$(VERSION)"

dkms-uninstall:
	@set -e; \
	if [ -z "$(DESTDIR)" ] && command -v dkms >/dev/null && dkms status evtrace/$(VERSION) | grep -q .; then \
		dkms remove evtrace/$(VERSION) --all; \
	fi; \
	rm -rf "$(D)$(DKMS_SRCDIR)"; echo "  RM      $(D)$(DKMS_SRCDIR)"
