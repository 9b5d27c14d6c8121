'''GeoClue 2 mock template for forecastd's tests (python-dbusmock has none).

Written from GeoClue's interface files (interface/org.freedesktop.GeoClue2.{Manager,Client,Location}.xml) and
what its src/gclue-service-client.c answers a client, as far as a client can see it:

- Manager.GetClient (and CreateClient) hands out a client object, /org/freedesktop/GeoClue2/Client/1.
- Client.Start fails with org.freedesktop.DBus.Error.AccessDenied:
  "'DesktopId' property must be set" when DesktopId is empty;
  "'ID' disallowed, no agent for UID N" when no agent has registered (Manager.AddAgent), as GeoClue 2.6 and
  later answer once their wait for an agent (5 s there; `no_agent_delay` here, 0 by default) is over;
  "Agent rejected 'ID' for user 'N'. ..." when the agent refuses (parameter `authorize`: false);
  "Geolocation disabled for UID N" when the agent's MaxAccuracyLevel is 0 (parameter `max_accuracy`).
- Otherwise the client becomes Active and, `delay` seconds later, gets a Location object
  (/org/freedesktop/GeoClue2/Client/1/Location/N with Latitude, Longitude, Accuracy, Altitude, Speed, Heading,
  Description, Timestamp) and emits LocationUpdated(old, new), unless it was stopped meanwhile. Client.Stop makes it
  inactive. Every call is in the objects' dbusmock call logs.

Parameters (JSON): latitude, longitude, accuracy (m), description, agent (bool: an agent is registered from the
start), authorize (bool), max_accuracy (uint), delay (s), no_agent_delay (s).
'''

import os

import dbus
from gi.repository import GLib

from dbusmock import MOCK_IFACE  # noqa: F401 (the template interface dbusmock expects to exist)
import dbusmock

BUS_NAME = 'org.freedesktop.GeoClue2'
MAIN_OBJ = '/org/freedesktop/GeoClue2/Manager'
MAIN_IFACE = 'org.freedesktop.GeoClue2.Manager'
SYSTEM_BUS = True
IS_OBJECT_MANAGER = False

CLIENT_IFACE = 'org.freedesktop.GeoClue2.Client'
LOCATION_IFACE = 'org.freedesktop.GeoClue2.Location'
CLIENT_PATH = '/org/freedesktop/GeoClue2/Client/1'
ACCESS_DENIED = 'org.freedesktop.DBus.Error.AccessDenied'


def load(mock, parameters):
    mock.geoclue = {
        'agent': bool(parameters.get('agent', False)),
        'authorize': bool(parameters.get('authorize', True)),
        'max_accuracy': int(parameters.get('max_accuracy', 8)),
        'latitude': float(parameters.get('latitude', 52.5163)),
        'longitude': float(parameters.get('longitude', 13.3777)),
        'accuracy': float(parameters.get('accuracy', 42.0)),
        'description': str(parameters.get('description', 'WiFi')),
        'delay': float(parameters.get('delay', 0.1)),
        'no_agent_delay': float(parameters.get('no_agent_delay', 0.0)),
        'locations': 0,
    }
    mock.AddProperties(MAIN_IFACE, {
        'InUse': False,
        'AvailableAccuracyLevel': dbus.UInt32(8),
    })
    mock.AddMethods(MAIN_IFACE, [
        ('GetClient', '', 'o', 'ret = self.get_client(self)'),
        ('CreateClient', '', 'o', 'ret = self.get_client(self)'),
        ('DeleteClient', 'o', '', ''),
        ('AddAgent', 's', '', 'self.geoclue["agent"] = True'),
    ])
    mock.get_client = get_client


def get_client(manager):
    if CLIENT_PATH not in dbusmock.mockobject.objects:
        manager.AddObject(CLIENT_PATH, CLIENT_IFACE, {
            'Location': dbus.ObjectPath('/'),
            'DistanceThreshold': dbus.UInt32(0),
            'TimeThreshold': dbus.UInt32(0),
            'DesktopId': '',
            'RequestedAccuracyLevel': dbus.UInt32(0),
            'Active': False,
        }, [
            ('Start', '', '', 'self.start(self)'),
            ('Stop', '', '', 'self.stop(self)'),
        ])
        client = dbusmock.get_object(CLIENT_PATH)
        client.manager = manager
        client.start = start
        client.stop = stop
    return dbus.ObjectPath(CLIENT_PATH)


def start(client):
    settings = client.manager.geoclue
    desktop_id = str(client.Get(CLIENT_IFACE, 'DesktopId'))
    uid = os.getuid()
    if not desktop_id:
        raise dbus.exceptions.DBusException("'DesktopId' property must be set", name=ACCESS_DENIED)
    if not settings['agent']:
        if settings['no_agent_delay'] > 0:
            GLib.usleep(int(settings['no_agent_delay'] * 1e6))
        raise dbus.exceptions.DBusException(f"'{desktop_id}' disallowed, no agent for UID {uid}", name=ACCESS_DENIED)
    if not settings['authorize']:
        raise dbus.exceptions.DBusException(
            f"Agent rejected '{desktop_id}' for user '{uid}'. Please ensure that '{desktop_id}' has installed a "
            f"valid {desktop_id}.desktop file.", name=ACCESS_DENIED)
    if settings['max_accuracy'] == 0:
        raise dbus.exceptions.DBusException(f'Geolocation disabled for UID {uid}', name=ACCESS_DENIED)
    client.Set(CLIENT_IFACE, 'Active', True)
    GLib.timeout_add(int(settings['delay'] * 1000), update_location, client)


def stop(client):
    client.Set(CLIENT_IFACE, 'Active', False)


def update_location(client):
    if not client.Get(CLIENT_IFACE, 'Active'):
        return False
    settings = client.manager.geoclue
    path = f"{CLIENT_PATH}/Location/{settings['locations']}"
    settings['locations'] += 1
    now = GLib.get_real_time()
    client.AddObject(path, LOCATION_IFACE, {
        'Latitude': dbus.Double(settings['latitude']),
        'Longitude': dbus.Double(settings['longitude']),
        'Accuracy': dbus.Double(settings['accuracy']),
        'Altitude': dbus.Double(-1.7976931348623157e308),
        'Speed': dbus.Double(-1.0),
        'Heading': dbus.Double(-1.0),
        'Description': settings['description'],
        'Timestamp': dbus.Struct((dbus.UInt64(now // 1000000), dbus.UInt64(now % 1000000)), signature='tt'),
    }, [])
    old = client.Get(CLIENT_IFACE, 'Location')
    client.Set(CLIENT_IFACE, 'Location', dbus.ObjectPath(path))
    client.EmitSignal(CLIENT_IFACE, 'LocationUpdated', 'oo', [dbus.ObjectPath(old), dbus.ObjectPath(path)])
    return False
