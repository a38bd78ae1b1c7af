// The controller's part for moderation and account care: the server's
// notices, a player kept out by a moderator, reporting and removing
// players at the table, blocking, the own account (password, data,
// deletion), the reset page, and the moderators' and administrators'
// pages. Like controller-screens.js, each screen's data is loaded when it
// is shown (`enter`), and the actions change app-state.js's fields only.

import { describe, describeWithDetail } from './messages.js';
import { KEPT_OUT, MAX_REASON, noticePlacement, sanctionRequest, untilSentence } from './moderation.js';

const AUDIT_PAGE = 50;

// The API's paths whose refusal of a suspended player belongs to the
// form that sent them: a login or a registration is answered on the
// sign-in screen, and a reset link on its own page.
const ANSWERED_IN_PLACE = /^\/api\/(login|register|reset)$/;

/**
 * The actions over `app`. `signInWith(token)` starts a session with an
 * account's token; `signedOut()` ends the page's session.
 */
export function moderationActions(app, { client, api, changed, navigateTo, notify, signInWith, signedOut }) {
  let broadcastId = 0;
  // Counts what the page learns of the maintenance (a notice, or the
  // administrator's own change), so that an answer of GET /api/maintenance
  // asked before it cannot put back what was true before.
  let maintenanceNews = 0;

  const actions = {
    // The server's notices (protocol.md, `notice`).

    noticeReceived(notice) {
      switch (noticePlacement(notice.kind)) {
        case 'banner':
          app.broadcasts = [...app.broadcasts, { id: (broadcastId += 1), message: notice.message }];
          break;
        case 'maintenance':
          // The notice's words say what the banner says itself (no new
          // tables, until when), so the banner is drawn at once without
          // them, and the administrator's own message is read from
          // GET /api/maintenance.
          maintenanceNews += 1;
          app.maintenance = { active: true, message: null, until: notice.until ?? null };
          loadMaintenance();
          break;
        case 'maintenance_over':
          maintenanceNews += 1;
          app.maintenance = null;
          notify(notice.message || 'The maintenance is over.', 'info');
          break;
        case 'kept_out':
          // The connection closes with 4009 next; the page says it then.
          app.keptOutNotice = { kind: notice.kind, message: notice.message, until: notice.until ?? null };
          break;
        default: {
          const until = notice.until ? ` ${untilSentence(notice.until)}` : '';
          notify(`${notice.message}${until}`, notice.kind === 'unmuted' ? 'info' : 'warn');
        }
      }
      changed();
    },

    dismissBroadcast(id) {
      app.broadcasts = app.broadcasts.filter((broadcast) => broadcast.id !== id);
      changed();
    },

    /**
     * The connection failed for good: when a moderator keeps the player
     * out (a 4009 close, or a `hello` refused `suspended` or `banned`),
     * the page says so and keeps saying it. True when it was that.
     */
    connectionFailed(detail) {
      let kept = null;
      if (detail.code === 4009) kept = app.keptOutNotice ?? { code: 'suspended', message: '' };
      else if (KEPT_OUT.has(detail.code)) kept = { code: detail.code, message: detail.message ?? '' };
      if (!kept) return false;
      keepOut(kept);
      return true;
    },

    /** An API refusal: one that says the player is kept out counts for the whole page. */
    apiRefused(error, path) {
      if (!KEPT_OUT.has(error.code) || ANSWERED_IN_PLACE.test(path) || !(app.player || client.token)) return;
      keepOut({ code: error.code, message: error.message });
    },

    /** The sanction may have ended: say hello again with the kept token. */
    retryKeptOut() {
      client.connect().catch(() => {
        // A refusal comes back through the status, which keeps the page as it is.
      });
    },

    // The table: reports and removals.

    /** Opens the report form about `player` (`{id, name}`), from the table or a profile. */
    openReport(player, via = 'table') {
      app.report = { player, via, sending: false, error: null };
      changed();
    },

    closeReport() {
      if (!app.report) return;
      app.report = null;
      changed();
    },

    async sendReport(reason) {
      const report = app.report;
      if (!report || report.sending) return;
      const text = reason.trim();
      if (!text || [...text].length > MAX_REASON) {
        report.error = `Say what happened, in 1 to ${MAX_REASON} characters.`;
        changed();
        return;
      }
      report.sending = true;
      report.error = null;
      changed();
      try {
        if (report.via === 'table') await client.report(report.player.id, text);
        else await api.reportPlayer(report.player.id, text);
        if (app.report === report) app.report = null;
        notify(`Thank you. Your report about ${report.player.name} is with the moderators.`);
      } catch (error) {
        report.sending = false;
        report.error = describeWithDetail(error);
        changed();
      }
    },

    /** The owner of a private room removes `player` (`{id, name}`) for good. */
    removePlayer(player) {
      const during = app.table.playing ? ' A bot plays his seat for the rest of the game.' : '';
      if (!confirm(`Remove ${player.name} from this table? He cannot come back to it.${during}`)) return;
      client.removePlayer(player.id).catch((error) => notify(error, 'error'));
    },

    // Blocking, from a profile or the own account.

    async setBlocked(player, blocked) {
      try {
        if (blocked) await api.block(player.id);
        else await api.unblock(player.id);
        notify(blocked
          ? `You block ${player.name}: his chat lines are hidden from you, and quick play never seats you together.`
          : `You no longer block ${player.name}.`);
      } catch (error) {
        notify(error, 'error');
      }
      await loadBlocks();
    },

    // The own account.

    /** Resolves true when the password changed (the form is then emptied). */
    async changePassword(oldPassword, newPassword) {
      // The server ends every other session of the account, this page's
      // connection included (4004): it comes back with the new token.
      app.claiming = true;
      try {
        const answer = await api.changePassword(oldPassword, newPassword);
        client.switchToken(answer.token);
        notify('Your password is changed. Your other devices were signed out.');
        return true;
      } catch (error) {
        notify(error, 'error');
        return false;
      } finally {
        app.claiming = false;
      }
    },

    async downloadData() {
      try {
        const data = await api.exportData();
        saveFile(`spades-${app.player?.name ?? 'account'}.json`, JSON.stringify(data, null, 2));
      } catch (error) {
        notify(error, 'error');
      }
    },

    async deleteAccount(password) {
      if (!confirm('Delete your account for good? Your name, password and blocks are removed; your games stay under "Deleted player". This cannot be undone.')) return;
      app.loggingOut = true;
      try {
        await api.deleteAccount(password);
      } catch (error) {
        app.loggingOut = false;
        notify(error, 'error');
        return;
      }
      client.close();
      client.setToken(null);
      app.loggingOut = false;
      signedOut();
      notify('Your account is deleted.');
    },

    // A reset link's page.

    async resetPassword(token, password) {
      app.resetView = { token, sending: true, error: null };
      changed();
      try {
        const answer = await api.reset(token, password);
        await signInWith(answer.token);
        notify('Your new password is set, and you are signed in.');
        navigateTo('lobby');
      } catch (error) {
        app.resetView = { token, sending: false, error: describeWithDetail(error) };
        changed();
      }
    },

    // Moderators.

    /** Shows or hides a player's record (his sanctions and the reports about him). */
    toggleRecord(playerId) {
      if (app.moderation.records[playerId]) {
        delete app.moderation.records[playerId];
        changed();
        return;
      }
      loadRecord(playerId);
    },

    /**
     * A one-step sanction (a choice of moderation.js's SANCTION_CHOICES)
     * with the reason typed in its form, keyed `formKey` for its errors.
     * Resolves true once it is in force.
     */
    async sanction(player, choice, reason, formKey) {
      const request = sanctionRequest(choice, reason);
      const errors = app.moderation.formErrors;
      if (request.error) {
        errors[formKey] = request.error;
        changed();
        return false;
      }
      delete errors[formKey];
      try {
        await api.sanction(player.id, request.body);
        notify(`${player.name}: ${choice.done}`);
        // The report's resolution is suggested from what was done.
        app.moderation.done[formKey] = choice.done;
        await Promise.all([loadSanctions(), app.moderation.records[player.id] ? loadRecord(player.id) : null]);
        return true;
      } catch (error) {
        errors[formKey] = describe(error) + (error.message && error.code !== error.message ? ` (${error.message})` : '');
        changed();
        return false;
      }
    },

    async resolveReport(report, resolution) {
      const key = `resolve-${report.id}`;
      const text = resolution.trim();
      if (!text) {
        app.moderation.formErrors[key] = 'Say what was done about it first.';
        changed();
        return;
      }
      delete app.moderation.formErrors[key];
      try {
        await api.resolveReport(report.id, text);
        notify(`The report about ${report.player_name} is resolved.`);
        await loadReports();
      } catch (error) {
        app.moderation.formErrors[key] = describe(error);
        changed();
      }
    },

    async liftSanction(sanction, reason) {
      try {
        await api.liftSanction(sanction.id, reason.trim());
        notify(`${sanction.player_name}'s ${sanction.kind} is lifted.`);
      } catch (error) {
        notify(error, 'error');
      }
      await Promise.all([loadSanctions(), app.moderation.records[sanction.player] ? loadRecord(sanction.player) : null,
        app.route.name === 'admin' ? loadAudit(false) : null]);
    },

    // Administrators.

    async setRole(playerId, role, reason) {
      try {
        await api.setRole(playerId.trim(), role, reason.trim());
        notify(`The player's role is now ${role}.`);
        await loadAudit(false);
        return true;
      } catch (error) {
        notify(error, 'error');
        return false;
      }
    },

    async issueResetLink(playerId) {
      try {
        const link = await api.resetLink(playerId.trim());
        app.admin.resetLink = { url: `${location.origin}${link.path}`, expiresAt: link.expires_at };
        await loadAudit(false);
      } catch (error) {
        notify(error, 'error');
      }
      changed();
    },

    async sendNotice(message) {
      try {
        await api.notice(message.trim());
        notify('The notice went to every connected player.');
        await loadAudit(false);
        return true;
      } catch (error) {
        notify(error, 'error');
        return false;
      }
    },

    async startMaintenance(message, minutes) {
      try {
        const view = await api.startMaintenance(message.trim(), Number(minutes) || null);
        maintenanceNews += 1;
        app.maintenance = view?.active ? view : app.maintenance;
        await loadAudit(false);
        return true;
      } catch (error) {
        notify(error, 'error');
        return false;
      } finally {
        changed();
      }
    },

    async endMaintenance() {
      try {
        await api.endMaintenance();
        maintenanceNews += 1;
        app.maintenance = null;
        await loadAudit(false);
      } catch (error) {
        notify(error, 'error');
      }
      changed();
    },

    /** The audit log again from its newest line, or (`older`) the page before the last shown. */
    loadAudit: (older) => loadAudit(older),

    /**
     * The maintenance in force, read again: a notice that the server sent
     * while the connection was down never arrives, and the page must not
     * go on believing the server is open (or closed) when it is not.
     */
    loadMaintenance: () => loadMaintenance(),

    /** A screen is shown: what it needs is loaded. */
    enter(route) {
      switch (route.name) {
        case 'lobby': return loadMaintenance();
        case 'profile': return loadBlocks();
        case 'reset':
          app.resetView = { token: route.param, sending: false, error: null };
          return null;
        case 'moderation':
          app.moderation = { reports: null, error: null, records: {}, formErrors: {}, done: {} };
          return Promise.all([loadReports(), loadSanctions()]);
        case 'admin':
          app.admin = { ...app.admin, playerId: route.param ?? app.admin.playerId, resetLink: null };
          return Promise.all([loadSanctions(), loadAudit(false), loadMaintenance()]);
        default: return null;
      }
    },
  };

  function keepOut(what) {
    app.keptOut = what;
    app.keptOutNotice = null;
    app.queue = null;
    app.report = null;
    app.table.clear();
    changed();
  }

  async function loadBlocks() {
    if (!client.token) return;
    try {
      app.blocks = { list: (await api.blocks()).blocked, error: null };
    } catch (error) {
      app.blocks = { list: null, error };
    }
    changed();
  }

  async function loadMaintenance() {
    const news = maintenanceNews;
    try {
      const view = await api.maintenance();
      if (news !== maintenanceNews) return;
      app.maintenance = view.active ? view : null;
    } catch {
      // The banner stays as it was; the page works without it.
    }
    changed();
  }

  async function loadReports() {
    try {
      app.moderation.reports = (await api.reports()).reports;
      app.moderation.error = null;
    } catch (error) {
      app.moderation.error = error;
    }
    changed();
  }

  async function loadRecord(playerId) {
    app.moderation.records[playerId] ??= { data: null, error: null };
    changed();
    try {
      app.moderation.records[playerId] = { data: await api.moderationRecord(playerId), error: null };
    } catch (error) {
      app.moderation.records[playerId] = { data: null, error };
    }
    changed();
  }

  async function loadSanctions() {
    try {
      app.sanctions = { list: (await api.sanctions()).sanctions, error: null };
    } catch (error) {
      app.sanctions = { list: null, error };
    }
    changed();
  }

  async function loadAudit(older) {
    const audit = app.admin.audit;
    const before = older && audit.lines.length ? audit.lines[audit.lines.length - 1].seq : null;
    try {
      const { lines } = await api.audit({ before, limit: AUDIT_PAGE });
      app.admin.audit = { lines: before === null ? lines : [...audit.lines, ...lines], more: lines.length === AUDIT_PAGE, error: null };
    } catch (error) {
      app.admin.audit = { ...audit, error };
    }
    changed();
  }

  return actions;
}

/** Saves `text` as a file the browser downloads. */
function saveFile(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has the file once the click is handled; the address is
  // let go a little later.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
