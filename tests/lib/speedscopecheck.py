#!/usr/bin/env python3
# speedscopecheck.py RELEASE_DIR PROFILE WANT SHOT: serves speedscope's
# release files (npm's speedscope package, dist/release) and PROFILE on
# 127.0.0.1, opens them in headless chromium (speedscope refuses a
# profile URL on file:), and prints "ok speedscope_opens" when the page
# names the profile and shows the text WANT (a thread's profile name);
# a screenshot goes to SHOT.
import functools
import http.server
import os
import shutil
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from webdriver import Browser  # noqa: E402

release, profile, want, shot = sys.argv[1:5]
shutil.copy(profile, os.path.join(release, 'pk-profile.json'))
handler = functools.partial(http.server.SimpleHTTPRequestHandler,
                            directory=release)
handler.log_message = lambda *a: None
srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
threading.Thread(target=srv.serve_forever, daemon=True).start()
b = Browser()
try:
    b.open(f'http://127.0.0.1:{srv.server_address[1]}/index.html'
           '#profileURL=/pk-profile.json')
    title = text = ''
    for _ in range(100):
        title = b.js('return document.title;')
        text = b.js('return document.body.innerText;')
        if want in text:
            break
        time.sleep(0.2)
    b.screenshot(shot)
    ok = title.endswith(' - speedscope') and want in text
    print('ok speedscope_opens' if ok else
          f'FAIL speedscope_opens: title {title!r}, text {text[:120]!r}')
finally:
    b.close()
    srv.shutdown()
