#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that a kernel module carries a signature made with a given key.

usage: verify-module-sig.py MODULE.ko CERT.der

The signature the kernel's sign-file appends (what bookworm's dkms runs) is
the module's bytes, a PKCS#7 (CMS) detached signature, a 12-byte
struct module_signature whose last 4 bytes are the signature's length (big
endian), and the magic "~Module signature appended~\\n". The signature is
checked cryptographically by openssl against the certificate, over the
module's bytes; the signer and key id modinfo shows must be the
certificate's subject CN and serial. Prints the signer; exit 0 when it all
holds, 1 otherwise.
"""
import os
import struct
import subprocess
import sys
import tempfile

MAGIC = b"~Module signature appended~\n"


def fail(msg):
    sys.exit("FAIL: %s" % msg)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    ko, cert = sys.argv[1], sys.argv[2]
    data = open(ko, "rb").read()
    if not data.endswith(MAGIC):
        fail("%s carries no signature (no %r at its end)" % (ko, MAGIC))
    info = data[-len(MAGIC) - 12:-len(MAGIC)]
    algo, hash_, id_type, signer_len, key_id_len = struct.unpack("5B", info[:5])
    (sig_len,) = struct.unpack(">I", info[8:])
    if id_type != 2:
        fail("%s: signature id_type %d, not PKCS#7" % (ko, id_type))
    end = len(data) - len(MAGIC) - 12
    sig, content = data[end - sig_len:end], data[:end - sig_len]
    with tempfile.TemporaryDirectory() as d:
        paths = {n: os.path.join(d, n) for n in ("sig.der", "content", "cert.pem")}
        open(paths["sig.der"], "wb").write(sig)
        open(paths["content"], "wb").write(content)
        subprocess.run(["openssl", "x509", "-inform", "DER", "-in", cert, "-out", paths["cert.pem"]],
                       check=True)
        r = subprocess.run(["openssl", "cms", "-verify", "-binary", "-inform", "DER",
                            "-in", paths["sig.der"], "-content", paths["content"],
                            "-certfile", paths["cert.pem"], "-CAfile", paths["cert.pem"],
                            "-purpose", "any", "-out", os.devnull],
                           capture_output=True, text=True)
        if r.returncode:
            fail("%s: the signature does not verify with %s: %s" % (ko, cert, r.stderr.strip()))
    subject = subprocess.run(["openssl", "x509", "-inform", "DER", "-in", cert, "-noout",
                              "-subject", "-nameopt", "multiline"],
                             capture_output=True, text=True, check=True).stdout
    cn = [l.split("=", 1)[1].strip() for l in subject.splitlines() if "commonName" in l]
    serial = subprocess.run(["openssl", "x509", "-inform", "DER", "-in", cert, "-noout", "-serial"],
                            capture_output=True, text=True, check=True).stdout.strip().split("=")[1]
    signer = subprocess.run(["modinfo", "-F", "signer", ko], capture_output=True, text=True).stdout.strip()
    key = subprocess.run(["modinfo", "-F", "sig_key", ko], capture_output=True, text=True).stdout.strip()
    if not cn or signer != cn[0]:
        fail("%s: modinfo signer %r, the certificate's CN is %r" % (ko, signer, cn))
    if key.replace(":", "").upper() != serial.upper():
        fail("%s: modinfo sig_key %s, the certificate's serial is %s" % (ko, key, serial))
    print("%s: signed by %r (key %s), the signature verifies with %s" % (ko, signer, key, cert))


main()
