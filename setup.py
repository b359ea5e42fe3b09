"""What pyproject.toml cannot say: the director's page's MQTT library (the
npm mqtt package's browser build, `make hall-page` puts it in build/npm)
copied into the built hall/page/, so that an installed hall serves its
pages without a checkout (hall/paths.py MQTT_JS)."""
import os

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
MQTT_JS = os.path.join(HERE, "build", "npm", "node_modules", "mqtt", "dist", "mqtt.min.js")


class BuildPy(build_py):
    def run(self):
        super().run()
        if os.path.isfile(MQTT_JS):
            self.copy_file(MQTT_JS, os.path.join(self.build_lib, "hall", "page", "mqtt.min.js"))
        else:
            self.warn("%s missing (make hall-page): the installed hall will not serve its "
                      "pages" % os.path.relpath(MQTT_JS, HERE))


setup(cmdclass={"build_py": BuildPy})
