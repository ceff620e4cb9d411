import type { NotificationHandlers, NotificationSubscription } from './notifications';

/** Injection token for NOTIFY listening on the open database (Database.listen). */
export abstract class DatabaseNotifications {
  abstract listen(channel: string, handlers: NotificationHandlers): Promise<NotificationSubscription>;
}
