#!/usr/bin/env python3
# webdriver.py: a small W3C WebDriver client (standard library only) for
# the browser tests: chromedriver started on a free port, a headless
# Debian chromium session, and what the tests do with a page: open it,
# find elements by XPath, click, hover, run a script, answer a prompt,
# take a screenshot.
import base64
import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request

ELEMENT = 'element-6066-11e4-a52e-4f735466cecf'


class Browser:
    def __init__(self, chromium='/usr/bin/chromium',
                 driver='/usr/bin/chromedriver', size=(1300, 900),
                 args=()):
        s = socket.socket()
        s.bind(('127.0.0.1', 0))
        self.port = s.getsockname()[1]
        s.close()
        self.proc = subprocess.Popen(
            [driver, f'--port={self.port}'], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        self.base = f'http://127.0.0.1:{self.port}'
        for _ in range(100):
            try:
                self.call('GET', '/status')
                break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.1)
        caps = {'capabilities': {'alwaysMatch': {
            'browserName': 'chrome',
            'goog:chromeOptions': {
                'binary': chromium,
                'args': ['--headless=new', '--no-sandbox', '--disable-gpu',
                         '--disable-dev-shm-usage',
                         f'--window-size={size[0]},{size[1]}'] +
                list(args)}}}}
        self.sid = self.call('POST', '/session', caps)['sessionId']

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data,
                                     method=method)
        req.add_header('Content-Type', 'application/json')
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.loads(r.read() or b'{}').get('value')
        except urllib.error.HTTPError as e:
            raise RuntimeError(f'{method} {path}: {e.read()[:300]}')

    def s(self, method, path, body=None):
        return self.call(method, f'/session/{self.sid}{path}', body)

    def open(self, url):
        self.s('POST', '/url', {'url': url})

    def find(self, xpath):
        return self.s('POST', '/element', {'using': 'xpath', 'value': xpath})

    def click(self, el):
        self.s('POST', f'/element/{el[ELEMENT]}/click', {})

    def hover(self, el):
        self.s('POST', '/actions', {'actions': [{
            'type': 'pointer', 'id': 'mouse',
            'parameters': {'pointerType': 'mouse'},
            'actions': [{'type': 'pointerMove', 'duration': 0,
                         'origin': el, 'x': 0, 'y': 0}]}]})

    def js(self, script, *args):
        return self.s('POST', '/execute/sync',
                      {'script': script, 'args': list(args)})

    def prompt(self, text):
        """Answers the open prompt with TEXT."""
        for _ in range(50):
            try:
                self.s('GET', '/alert/text')
                break
            except RuntimeError:
                time.sleep(0.1)
        self.s('POST', '/alert/text', {'text': text})
        self.s('POST', '/alert/accept', {})

    def screenshot(self, path):
        png = base64.b64decode(self.s('GET', '/screenshot'))
        with open(path, 'wb') as f:
            f.write(png)

    def close(self):
        try:
            self.s('DELETE', '')
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def available():
    return all(os.access(p, os.X_OK)
               for p in ('/usr/bin/chromium', '/usr/bin/chromedriver'))
